// Broadcast > Send Template: POST rt/send_broadcast of kind msgapp, recipients batched into `entries` (spec 4.3).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readCredentials, svcRequest, type SvcCredentials } from '../../transport/request';
import { itemParameters, type ParameterReader } from '../../parameters';
import { listLocator, OPERATOR_BY_ID, optionsCollection } from '../../descriptions/parameterBlocks';
import { describeValueType, showValue } from '../../helpers/values';
import type { BroadcastEntry } from '../../types';
import type { ExecuteBatch } from '../router';

/** Both broadcast kinds: the operator the broadcast is sent for and the channel (spec 4.3). */
export const senderProperties: INodeProperties[] = [
	listLocator(
		{
			displayName: 'Operator',
			name: 'operatorId',
			description: 'The operator on whose behalf the broadcast is sent',
			searchListMethod: 'searchOperators',
		},
		OPERATOR_BY_ID,
	),
	{
		displayName: 'Channel ID',
		name: 'channelId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. wa-main',
		description:
			'ID of the messaging-app channel to send through, as shown in the channel settings of Svc',
	},
];

export function readSender(context: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(context, itemIndex, senderProperties);
	return {
		operatorId: read.wholeNumber('operatorId', {
			min: 1,
			fix: 'Pick the operator from the list, or enter their numeric ID; Get many operators lists them.',
		}),
		channelId: read.requiredText('channelId', {
			fix: 'Enter the ID of the messaging-app channel, as shown in Svc.',
		}),
	};
}

/** Bounded by default: the API names no size limit but a real server has one, and a failed request is never retried. */
const DEFAULT_RECIPIENTS_PER_REQUEST = 1000;

const textParameter: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	default: '',
	description: 'The value of this template parameter',
};

const headerTypeParameter: INodeProperties = {
	displayName: 'Type',
	name: 'type',
	type: 'options',
	options: [
		{ name: 'Audio', value: 'audio' },
		{ name: 'Document', value: 'document' },
		{ name: 'Image', value: 'image' },
		{ name: 'Text', value: 'text' },
		{ name: 'Video', value: 'video' },
	],
	default: 'text',
	description:
		'Kind of header parameter; media files themselves cannot be sent through this request',
};

const HEADER_TYPES = headerTypeParameter.options!.map(
	(option) => (option as { value: string }).value,
);

/** The list of one template part's parameters ("Header Parameters"), each row one parameter. */
function templatePart(part: string, description: string, values = [textParameter]) {
	return {
		displayName: `${part} Parameters`,
		name: `${part.toLowerCase()}Parameters`,
		type: 'fixedCollection',
		placeholder: `Add ${part} Parameter`,
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description,
		options: [{ displayName: 'Parameter', name: 'parameter', values }],
	} satisfies INodeProperties;
}

/** The one rule that two items are one message to one person (messageKey), as the notice and docs/outputs.md state it. */
const SAME_MESSAGE = 'the same phone number, template, language and parameters';
const messageKey = ({ templateId, entry: { phone_number: phone, ...rest } }: Recipient) =>
	JSON.stringify([phone.replace(/\D/g, ''), templateId, rest]);

export const properties: INodeProperties[] = [
	{
		displayName: `Each input item is one recipient. Recipients go out 1,000 per request unless you change 'Recipients per Request'. An item with ${SAME_MESSAGE} as an earlier one is not sent again, and a request is never retried, so nobody gets the message twice in one run.`,
		name: 'batchingNotice',
		type: 'notice',
		default: '',
	},
	...senderProperties,
	{
		displayName: 'Template ID',
		name: 'templateId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. welcome_v2',
		description: 'ID of the template registered (and active) with the messaging app',
	},
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +15550000001',
		description:
			"The recipient's phone number, usually mapped from the input item. Numbers not registered with the messaging app receive nothing.",
	},
	{
		displayName: 'Language Code',
		name: 'languageCode',
		type: 'string',
		default: 'en',
		required: true,
		description:
			'Language of the template to send, as registered with the messaging app (e.g. en, de, pt_BR)',
	},
	templatePart('Header', "Values for the template's header, in the same order as in the template", [
		headerTypeParameter,
		textParameter,
	]),
	templatePart(
		'Body',
		"Values for the template's body placeholders ({{1}}, {{2}}…), in the same order as in the template",
	),
	templatePart('Footer', "Values for the template's footer, in the same order as in the template"),
	optionsCollection([
		{
			displayName: 'Recipients per Request',
			name: 'recipientsPerRequest',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: DEFAULT_RECIPIENTS_PER_REQUEST,
			description:
				"How many recipients to put in one request; 0 sends all input items in one request. The default keeps each request well under a server's size limit, so one failure fails at most 1,000 items.",
		},
	]),
];

/** Every recipient is read first, so a bad item cannot stop a broadcast half-way; then one request at a time. */
export const executeBatch: ExecuteBatch = async function (items, output) {
	if (!items.length) return;
	let recipientsPerRequest: number;
	try {
		// Read from the first item, since it shapes the whole batch.
		recipientsPerRequest = itemParameters(this, 0, properties).wholeNumber(
			'options.recipientsPerRequest',
			{ fallback: DEFAULT_RECIPIENTS_PER_REQUEST, fix: 'Use 0 to send all items in one request.' },
		);
	} catch (error) {
		const everyItem = items.map((_, itemIndex) => ({ itemIndex }));
		return output.fail(error, everyItem);
	}
	// The first item of each message is sent; its repeats go with it (merged into it).
	const recipients = new Map<string, Recipient>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const recipient = readRecipient(this, itemIndex);
			const first = recipients.get(messageKey(recipient));
			if (first) first.repeats.push(recipient);
			else recipients.set(messageKey(recipient), recipient);
		} catch (error) {
			output.fail(error, [{ itemIndex }]);
		}
	}
	const requests = planRequests([...recipients.values()], recipientsPerRequest);
	const sentItems: number[] = [];
	let credentials: SvcCredentials | undefined;
	for (const [index, batch] of requests.entries()) {
		const place = { request: index + 1, requests: requests.length };
		const [{ itemIndex: firstItem, operatorId, channelId, templateId }] = batch;
		const data = { template_id: templateId, entries: batch.map((recipient) => recipient.entry) };
		const body = { operator_id: operatorId, data: { kind: 'msgapp', channel_id: channelId, data } };
		try {
			// Read once for all the requests (n8n decrypts them on every read), where a failure fails this request.
			credentials ??= await readCredentials(this);
			await svcRequest(this, 'rt/send_broadcast', { body, itemIndex: firstItem, credentials });
		} catch (error) {
			const failed = batch
				.flatMap((recipient) => [recipient, ...recipient.repeats])
				.map(({ itemIndex, entry }) => ({
					itemIndex,
					fields: { ...place, phone_number: entry.phone_number },
				}));
			output.fail(error, failed, alreadySentNote(sentItems));
			continue;
		}
		for (const { itemIndex, entry, repeats } of batch)
			for (const one of [{ itemIndex, entry }, ...repeats]) {
				sentItems.push(one.itemIndex);
				const merged = one.itemIndex !== itemIndex && { merged_into_item: itemIndex };
				output.succeed(one.itemIndex, [
					{
						// Accepted, not delivered: the API reports no delivery (spec 4.3 rule 2).
						result: merged ? 'merged' : 'accepted',
						...merged,
						...place,
						recipients_in_request: batch.length,
						phone_number: one.entry.phone_number,
						language_code: entry.language_code,
						template_id: templateId,
						channel_id: channelId,
						operator_id: operatorId,
					},
				]);
			}
	}
};

/** One input item as a recipient: who sends which template, and the entry sent for this item. */
type Recipient = ReturnType<typeof readRecipient>;

function readRecipient(context: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(context, itemIndex, properties);
	const sender = readSender(context, itemIndex);
	const templateId = read.requiredText('templateId', {
		fix: 'Enter the ID of an active template, e.g. welcome_v2.',
	});
	const phoneFix = "Map the recipient's phone number from the input, e.g. {{ $json.phone }}.";
	const phoneNumber = read.requiredText('phoneNumber', { fix: phoneFix });
	// Digits, with the signs people write between them; a number with letters would go out as it is and reach nobody.
	if (!/\d/.test(phoneNumber) || /[^\d\s+().-]/.test(phoneNumber))
		throw read.fail(
			`'${read.label('phoneNumber')}' is not a phone number (${JSON.stringify(phoneNumber)})`,
			`Give its digits, e.g. +15550000001 (spaces, dashes, dots and brackets are allowed). ${phoneFix}`,
		);
	const languageCode = read.requiredText('languageCode', {
		fix: 'Enter the template language, e.g. en.',
	});
	const entry: BroadcastEntry = { phone_number: phoneNumber, language_code: languageCode };
	// The entry's `body` (spec 4.3): one `{type, parameters}` object when exactly one part has parameters, a list of
	// them when several do, nothing when none do (the template's stored content is sent, rule 4). Order is kept (rule 3).
	const parts = (['header', 'body', 'footer'] as const).flatMap((type) => {
		const parameters = readPart(read, type);
		return parameters.length ? [{ type, parameters }] : [];
	});
	if (parts.length) entry.body = parts.length === 1 ? parts[0] : parts;
	const repeats: Array<{ itemIndex: number; entry: BroadcastEntry }> = []; // merged into this one
	return { itemIndex, ...sender, templateId, entry, repeats };
}

/** The parameters of one template part, each as text, in the order given; footer parameters carry no type. */
function readPart(read: ParameterReader, part: 'header' | 'body' | 'footer'): IDataObject[] {
	const name = `${part}Parameters.parameter`;
	return read.rows(name).map((row, position) => {
		// The label is looked up only for an error: one per part and item would be most of a large broadcast's time.
		const refuse = (problem: string, fix: string) =>
			read.fail(`'${read.label(name)}, parameter ${position + 1}' ${problem}`, fix);
		const text =
			typeof row.text === 'number' && Number.isFinite(row.text) ? String(row.text) : row.text;
		if (typeof text !== 'string') {
			throw refuse(
				`must be text, but it is ${describeValueType(row.text)}`,
				'Give the parameter a text value.',
			);
		}
		if (!text.trim())
			throw refuse('is empty', 'Fill in every template parameter, or remove the empty one.');
		const type = part === 'header' ? row.type : 'text';
		if (typeof type !== 'string' || !HEADER_TYPES.includes(type)) {
			throw refuse(`has the type ${showValue(type)}`, `Use one of: ${HEADER_TYPES.join(', ')}.`);
		}
		return part === 'footer' ? { text } : { type, text };
	});
}

/** Recipients grouped by sender and template (usually one group), in input order, then cut into requests. */
function planRequests(recipients: Recipient[], recipientsPerRequest: number): Recipient[][] {
	const groups = new Map<string, Recipient[]>();
	for (const recipient of recipients) {
		const key = JSON.stringify([recipient.operatorId, recipient.channelId, recipient.templateId]);
		const group = groups.get(key);
		if (group) group.push(recipient);
		else groups.set(key, [recipient]);
	}
	// Consecutive slices of at most recipientsPerRequest; 0 means one request holding the whole group.
	return [...groups.values()].flatMap((group) => {
		const size = recipientsPerRequest || group.length;
		const count = Math.ceil(group.length / size);
		return Array.from({ length: count }, (_, i) => group.slice(i * size, (i + 1) * size));
	});
}

/** Names the recipients already sent before a request failed ("items 0–99, 150–160"), so a rerun skips them. */
function alreadySentNote(sentItems: number[]): string | undefined {
	if (!sentItems.length) return undefined;
	const ranges: Array<[number, number]> = [];
	for (const item of [...sentItems].sort((a, b) => a - b)) {
		const last = ranges.at(-1);
		if (last && item === last[1] + 1) last[1] = item;
		else ranges.push([item, item]);
	}
	const shown = ranges.map(([first, end]) => (first === end ? `${first}` : `${first}–${end}`));
	return `${sentItems.length} recipient(s) were already sent in earlier requests (items ${shown.join(', ')}); run only the other items again, or these are messaged twice.`;
}
