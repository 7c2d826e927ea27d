// Parameters both broadcast kinds share: the operator the broadcast is sent for and the channel (spec 4.3).
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readPositiveInteger, readRequiredText } from '../parameters';

export const senderProperties: INodeProperties[] = [
	{
		displayName: 'Operator ID',
		name: 'operatorId',
		type: 'number',
		typeOptions: { numberPrecision: 0 },
		default: 0,
		required: true,
		description: 'ID of the operator on whose behalf the broadcast is sent (Operator > Get Many lists the IDs)',
	},
	{
		displayName: 'Channel ID',
		name: 'channelId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. wa-main',
		description: 'ID of the messaging-app channel to send through, as shown in the channel settings of Svc',
	},
];

export interface Sender {
	operatorId: number;
	channelId: string;
}

export function readSender(context: IExecuteFunctions, itemIndex: number): Sender {
	return {
		operatorId: readPositiveInteger(context, 'operatorId', itemIndex, 'Operator ID', 'Enter the numeric ID of an operator; Operator > Get Many lists them.'),
		channelId: readRequiredText(context, 'channelId', itemIndex, 'Channel ID', 'Enter the ID of the messaging-app channel, as shown in Svc.'),
	};
}
