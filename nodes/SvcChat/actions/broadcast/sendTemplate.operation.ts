// Broadcast > Send Template: POST rt/send_broadcast of kind msgapp, recipients batched into `entries` (spec 4.3).
import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import { itemParameters } from '../../parameters';
import { BatchOutput } from './batchOutput';
import { senderProperties } from './common';
import { optionsCollection } from '../../descriptions/parameterBlocks';
import {
	DEFAULT_RECIPIENTS_PER_REQUEST,
	readRecipient,
	readRecipientsPerRequest,
	type Recipient,
} from './templateRecipients';
import { alreadySentNote, planRequests } from './templateRequests';

const textParameter: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	default: '',
	description: 'The value of this template parameter',
};

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

/** Step 1: every recipient is read before anything is sent, so a bad item cannot stop a broadcast half-way. */
function readRecipients(
	context: IExecuteFunctions,
	itemCount: number,
	output: BatchOutput,
): { recipients: Recipient[]; recipientsPerRequest: number } | undefined {
	let recipientsPerRequest: number;
	try {
		recipientsPerRequest = readRecipientsPerRequest(itemParameters(context, 0, properties));
	} catch (error) {
		output.fail(
			error,
			Array.from({ length: itemCount }, (_, itemIndex) => ({ itemIndex })),
		);
		return undefined;
	}
	const recipients: Recipient[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const read = itemParameters(context, itemIndex, properties);
			recipients.push(readRecipient(context, read, itemIndex));
		} catch (error) {
			output.fail(error, [{ itemIndex }]);
		}
	}
	return { recipients, recipientsPerRequest };
}

/** Steps 3 and 4: one request at a time, never retried; each recipient's output says how its request went. */
async function sendRequests(
	this: IExecuteFunctions,
	requests: Recipient[][],
	output: BatchOutput,
): Promise<void> {
	const sentItems: number[] = [];
	for (const [index, batch] of requests.entries()) {
		const place = { request: index + 1, requests: requests.length };
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
			const failed = batch.map(({ itemIndex, entry }) => ({
				itemIndex,
				fields: { ...place, phone_number: entry.phone_number },
			}));
			output.fail(error, failed, alreadySentNote(sentItems));
			continue;
		}
		for (const { itemIndex, entry } of batch) {
			sentItems.push(itemIndex);
			output.succeed(itemIndex, {
				result: 'ok',
				...place,
				recipients_in_request: batch.length,
				phone_number: entry.phone_number,
				language_code: entry.language_code,
				template_id: templateId,
				channel_id: channelId,
				operator_id: operatorId,
			});
		}
	}
}

/** Read recipients → plan requests → send → output items; continue-on-fail is decided in BatchOutput.fail only. */
export async function executeBatch(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (!items.length) return [];
	const output = new BatchOutput(this, items.length);
	const input = readRecipients(this, items.length, output);
	if (input) {
		const requests = planRequests(input.recipients, input.recipientsPerRequest);
		await sendRequests.call(this, requests, output);
	}
	return output.result();
}
