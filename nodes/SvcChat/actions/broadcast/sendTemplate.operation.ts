// Broadcast > Send Template: POST rt/send_broadcast of kind msgapp, recipients batched into `entries` (spec 4.3).
import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import type { BroadcastEntry } from '../../types';
import { chunk, templateEntryBody, type TemplateParameters } from '../../helpers/broadcast';
import { describeValueType, showValue } from '../../helpers/values';
import { parameterError, readRequiredText, readRows } from '../parameters';
import { asNodeError, errorItem } from '../itemErrors';
import { readSender, senderProperties, type Sender } from './common';
import { optionsCollection } from '../common.descriptions';

const HEADER_TYPES = ['text', 'image', 'video', 'document', 'audio'];

const textParameter: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	default: '',
	description: 'The value of this template parameter',
};

/** Bounded by default: the API names no size limit but a real server has one, and a failed request is never retried. */
export const DEFAULT_RECIPIENTS_PER_REQUEST = 1000;

const properties: INodeProperties[] = [
	{
		displayName:
			"Each input item is one recipient. Recipients go out 1,000 per request unless you change 'Recipients per Request'. A request is never retried, so nobody gets the message twice.",
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
	{
		displayName: 'Header Parameters',
		name: 'headerParameters',
		type: 'fixedCollection',
		placeholder: 'Add Header Parameter',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description: "Values for the template's header, in the same order as in the template",
		options: [
			{
				displayName: 'Parameter',
				name: 'parameter',
				values: [
					{
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
					},
					textParameter,
				],
			},
		],
	},
	{
		displayName: 'Body Parameters',
		name: 'bodyParameters',
		type: 'fixedCollection',
		placeholder: 'Add Body Parameter',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description:
			"Values for the template's body placeholders ({{1}}, {{2}}…), in the same order as in the template",
		options: [{ displayName: 'Parameter', name: 'parameter', values: [textParameter] }],
	},
	{
		displayName: 'Footer Parameters',
		name: 'footerParameters',
		type: 'fixedCollection',
		placeholder: 'Add Footer Parameter',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description: "Values for the template's footer, in the same order as in the template",
		options: [{ displayName: 'Parameter', name: 'parameter', values: [textParameter] }],
	},
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

export const description = updateDisplayOptions(
	{ show: { resource: ['broadcast'], operation: ['sendTemplate'] } },
	properties,
);

interface Recipient {
	itemIndex: number;
	sender: Sender & { templateId: string };
	entry: BroadcastEntry;
}

const PART_LABELS = {
	header: 'Header Parameters',
	body: 'Body Parameters',
	footer: 'Footer Parameters',
} as const;

/** The parameters of one template part, each as text, in the order given. */
function readPart(
	context: IExecuteFunctions,
	itemIndex: number,
	part: keyof typeof PART_LABELS,
): Array<{ type: string; text: string }> {
	const label = PART_LABELS[part];
	const rows = readRows(context, `${part}Parameters.parameter`, itemIndex, label);
	return rows.map((row, position) => {
		const where = `${label}, parameter ${position + 1}`;
		const text =
			typeof row.text === 'number' && Number.isFinite(row.text) ? String(row.text) : row.text;
		if (typeof text !== 'string') {
			throw parameterError(
				context,
				itemIndex,
				`'${where}' must be text, but it is ${describeValueType(row.text)}`,
				'Give the parameter a text value.',
			);
		}
		if (!text.trim()) {
			throw parameterError(
				context,
				itemIndex,
				`'${where}' is empty`,
				'Fill in every template parameter, or remove the empty one.',
			);
		}
		const type = part === 'header' ? row.type : 'text';
		if (typeof type !== 'string' || !HEADER_TYPES.includes(type)) {
			throw parameterError(
				context,
				itemIndex,
				`'${where}' has the type ${showValue(type)}`,
				`Use one of: ${HEADER_TYPES.join(', ')}.`,
			);
		}
		return { type, text };
	});
}

function readRecipient(context: IExecuteFunctions, itemIndex: number): Recipient {
	const sender = readSender(context, itemIndex);
	const templateId = readRequiredText(
		context,
		'templateId',
		itemIndex,
		'Template ID',
		'Enter the ID of an active template, e.g. welcome_v2.',
	);
	const phoneNumber = readRequiredText(
		context,
		'phoneNumber',
		itemIndex,
		'Phone Number',
		"Map the recipient's phone number from the input, e.g. {{ $json.phone }}.",
	);
	const languageCode = readRequiredText(
		context,
		'languageCode',
		itemIndex,
		'Language Code',
		'Enter the template language, e.g. en.',
	);
	const parameters: TemplateParameters = {
		header: readPart(context, itemIndex, 'header'),
		body: readPart(context, itemIndex, 'body'),
		footer: readPart(context, itemIndex, 'footer'),
	};
	const entry: BroadcastEntry = { phone_number: phoneNumber, language_code: languageCode };
	const body = templateEntryBody(parameters);
	if (body !== undefined) entry.body = body as BroadcastEntry['body'];
	return { itemIndex, sender: { ...sender, templateId }, entry };
}

function readRecipientsPerRequest(context: IExecuteFunctions): number {
	const value = context.getNodeParameter(
		'options.recipientsPerRequest',
		0,
		DEFAULT_RECIPIENTS_PER_REQUEST,
	) as unknown;
	if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
		throw parameterError(
			context,
			0,
			`'Recipients per Request' must be a whole number of 0 or more (${showValue(value)})`,
			'Use 0 to send all items in one request.',
		);
	}
	return value;
}

/** Recipients grouped by sender and template (usually one group), in input order, then cut into requests. */
function planRequests(recipients: Recipient[], recipientsPerRequest: number): Recipient[][] {
	const groups = new Map<string, Recipient[]>();
	for (const recipient of recipients) {
		const { operatorId, channelId, templateId } = recipient.sender;
		const key = JSON.stringify([operatorId, channelId, templateId]);
		const group = groups.get(key) ?? [];
		group.push(recipient);
		groups.set(key, group);
	}
	return [...groups.values()].flatMap((group) => chunk(group, recipientsPerRequest));
}

/** "0–99, 150–160": sorted item indexes as ranges. */
function itemRanges(itemIndexes: number[]): string {
	const sorted = [...itemIndexes].sort((a, b) => a - b);
	const ranges: string[] = [];
	for (let start = 0; start < sorted.length; ) {
		let end = start;
		while (end + 1 < sorted.length && sorted[end + 1] === sorted[end] + 1) end++;
		ranges.push(start === end ? `${sorted[start]}` : `${sorted[start]}–${sorted[end]}`);
		start = end + 1;
	}
	return ranges.join(', ');
}

/** Tells the user which recipients were already sent before a request failed, so a rerun does not message them twice. */
function noteAlreadySent(error: Error, sentItems: number[]): void {
	if (!sentItems.length) return;
	const carrier = error as Error & { description?: string | null };
	const note = `${sentItems.length} recipient(s) were already sent in earlier requests (items ${itemRanges(sentItems)}); run only the other items again, or these are messaged twice.`;
	carrier.description = carrier.description ? `${carrier.description} ${note}` : note;
}

export async function executeBatch(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const continueOnFail = this.continueOnFail();
	const output: INodeExecutionData[] = new Array<INodeExecutionData>(items.length);
	if (!items.length) return [];

	let recipientsPerRequest: number;
	try {
		recipientsPerRequest = readRecipientsPerRequest(this);
	} catch (error) {
		if (!continueOnFail) throw asNodeError(this, error, 0);
		return items.map((_, itemIndex) => errorItem(error as Error, itemIndex));
	}

	// Every recipient is checked before anything is sent: a bad item must not stop a broadcast half-way.
	const recipients: Recipient[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			recipients.push(readRecipient(this, itemIndex));
		} catch (error) {
			if (!continueOnFail) throw asNodeError(this, error, itemIndex);
			output[itemIndex] = errorItem(error as Error, itemIndex);
		}
	}

	const requests = planRequests(recipients, recipientsPerRequest);
	const sentItems: number[] = [];
	for (const [index, batch] of requests.entries()) {
		const request = index + 1;
		const { operatorId, channelId, templateId } = batch[0].sender;
		const body: IDataObject = {
			operator_id: operatorId,
			data: {
				kind: 'msgapp',
				channel_id: channelId,
				data: { template_id: templateId, entries: batch.map((r) => r.entry) },
			},
		};
		try {
			await svcApiRequest.call(this, 'rt/send_broadcast', {
				body,
				itemIndex: batch[0].itemIndex,
			});
		} catch (error) {
			if (!continueOnFail) {
				const nodeError = asNodeError(this, error, batch[0].itemIndex);
				noteAlreadySent(nodeError, sentItems);
				throw nodeError;
			}
			for (const { itemIndex, entry } of batch) {
				const failed = errorItem(error as Error, itemIndex);
				Object.assign(failed.json, {
					request,
					requests: requests.length,
					phone_number: entry.phone_number,
				});
				output[itemIndex] = failed;
			}
			continue;
		}
		for (const { itemIndex, entry } of batch) {
			sentItems.push(itemIndex);
			output[itemIndex] = {
				json: {
					result: 'ok',
					request,
					requests: requests.length,
					recipients_in_request: batch.length,
					phone_number: entry.phone_number,
					language_code: entry.language_code,
					template_id: templateId,
					channel_id: channelId,
					operator_id: operatorId,
				},
				pairedItem: { item: itemIndex },
			};
		}
	}
	return output;
}
