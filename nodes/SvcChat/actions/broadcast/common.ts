// Parameters both broadcast kinds share: the operator the broadcast is sent for and the channel (spec 4.3).
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { itemParameters } from '../../parameters';

export const senderProperties: INodeProperties[] = [
	{
		displayName: 'Operator',
		name: 'operatorId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The operator on whose behalf the broadcast is sent',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchOperators', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 12',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*\\d+\\s*$',
							errorMessage: 'An operator ID is a whole number',
						},
					},
				],
			},
		],
	},
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

/** The operator and channel of one input item. */
export function readSender(context: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(context, itemIndex, senderProperties);
	return {
		operatorId: read.positiveInteger('operatorId', {
			fix: 'Pick the operator from the list, or enter their numeric ID; Operator > Get Many lists them.',
		}),
		channelId: read.requiredText('channelId', {
			fix: 'Enter the ID of the messaging-app channel, as shown in Svc.',
		}),
	};
}
