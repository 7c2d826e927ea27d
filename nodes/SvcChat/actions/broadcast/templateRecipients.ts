// Send Template, step 1: read each input item as one recipient, and the batch size, before anything is sent.
import type { IExecuteFunctions } from 'n8n-workflow';

import type { BroadcastEntry } from '../../types';
import { templateEntryBody, type TemplateParameters } from '../../helpers/broadcast';
import { describeValueType, showValue } from '../../helpers/values';
import type { ParameterReader } from '../../parameters';
import { readSender, type Sender } from './common';

export const HEADER_TYPES = ['text', 'image', 'video', 'document', 'audio'];

/** Bounded by default: the API names no size limit but a real server has one, and a failed request is never retried. */
export const DEFAULT_RECIPIENTS_PER_REQUEST = 1000;

export interface Recipient {
	itemIndex: number;
	sender: Sender & { templateId: string };
	entry: BroadcastEntry;
}

/** The parameters of one template part, each as text, in the order given. */
function readPart(
	read: ParameterReader,
	part: 'header' | 'body' | 'footer',
): Array<{ type: string; text: string }> {
	const name = `${part}Parameters.parameter`;
	const label = read.label(name);
	return read.rows(name).map((row, position) => {
		const where = `${label}, parameter ${position + 1}`;
		const text =
			typeof row.text === 'number' && Number.isFinite(row.text) ? String(row.text) : row.text;
		if (typeof text !== 'string') {
			throw read.fail(
				`'${where}' must be text, but it is ${describeValueType(row.text)}`,
				'Give the parameter a text value.',
			);
		}
		if (!text.trim()) {
			throw read.fail(
				`'${where}' is empty`,
				'Fill in every template parameter, or remove the empty one.',
			);
		}
		const type = part === 'header' ? row.type : 'text';
		if (typeof type !== 'string' || !HEADER_TYPES.includes(type)) {
			throw read.fail(
				`'${where}' has the type ${showValue(type)}`,
				`Use one of: ${HEADER_TYPES.join(', ')}.`,
			);
		}
		return { type, text };
	});
}

/** One input item as a recipient: the sender and template, and the entry sent for it. */
export function readRecipient(
	context: IExecuteFunctions,
	read: ParameterReader,
	itemIndex: number,
): Recipient {
	const sender = readSender(context, itemIndex);
	const templateId = read.requiredText('templateId', {
		fix: 'Enter the ID of an active template, e.g. welcome_v2.',
	});
	const phoneNumber = read.requiredText('phoneNumber', {
		fix: "Map the recipient's phone number from the input, e.g. {{ $json.phone }}.",
	});
	const languageCode = read.requiredText('languageCode', {
		fix: 'Enter the template language, e.g. en.',
	});
	const parameters: TemplateParameters = {
		header: readPart(read, 'header'),
		body: readPart(read, 'body'),
		footer: readPart(read, 'footer'),
	};
	const entry: BroadcastEntry = { phone_number: phoneNumber, language_code: languageCode };
	const body = templateEntryBody(parameters);
	if (body !== undefined) entry.body = body as BroadcastEntry['body'];
	return { itemIndex, sender: { ...sender, templateId }, entry };
}

/** How many recipients go in one request (0: all); read from the first item, since it shapes the whole batch. */
export function readRecipientsPerRequest(read: ParameterReader): number {
	return read.wholeNumber('options.recipientsPerRequest', {
		fallback: DEFAULT_RECIPIENTS_PER_REQUEST,
		fix: 'Use 0 to send all items in one request.',
	});
}
