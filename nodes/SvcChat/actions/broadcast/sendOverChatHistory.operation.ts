// Broadcast > Send Over Chat History: POST rt/send_broadcast of kind history-chats; its payload is not shown in the spec.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { itemParameters } from '../../parameters';
import { readSender, senderProperties } from './sendTemplate.operation';

export const properties: INodeProperties[] = [
	...senderProperties,
	{
		displayName: 'Payload (JSON)',
		name: 'payload',
		type: 'json',
		default: '{}',
		required: true,
		description:
			'The content of the broadcast, as a JSON object. The API documentation does not show its fields, so give the object your Svc account expects. It is sent once per input item and never retried.',
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const { operatorId, channelId } = readSender(this, itemIndex);
	const payload = itemParameters(this, itemIndex, properties).jsonObject('payload', {
		fix: 'Write the payload as a JSON object, e.g. {"text": "Hello"}.',
	});
	const body = {
		operator_id: operatorId,
		data: { kind: 'history-chats', channel_id: channelId, data: payload },
	};
	await svcRequest(this, 'rt/send_broadcast', { body, itemIndex });
	return [
		{ result: 'accepted', kind: 'history-chats', operator_id: operatorId, channel_id: channelId },
	];
}
