// The "Svc Chat Trigger": polls for new or changed chats, ratings and missed chats, never losing one, or operators' statuses.
import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { SVC_CHAT_TRIGGER_DESCRIPTION } from './descriptions/nodeDescriptions';
import { searchOperators } from './descriptions/listSearch';
import { pollParameters } from './parameters';
import { triggerProperties } from './trigger/description';
import { operatorProperties, pollOperators } from './trigger/operators';
import { pollBudget, pollChats } from './trigger/poll';

export class SvcChatTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat Trigger',
		name: 'svcChatTrigger',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"everyChange": "Every change", "newChats": "New chats", "finishedChats": "Finished chats", "newRating": "New rating", "missedChat": "Missed chat", "operatorStatusChanged": "Operator status changed", "operatorAvailabilityChanged": "Operator availability changed"}[$parameter["emit"]] }}',
		description: SVC_CHAT_TRIGGER_DESCRIPTION,
		defaults: { name: 'Svc Chat Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true }],
		properties: [...triggerProperties, ...operatorProperties],
	};

	methods = { listSearch: { searchOperators } };

	async poll(this: IPollFunctions) {
		const event = pollParameters(this, triggerProperties).choice<string>('emit');
		if (event === 'operatorAvailabilityChanged' || event === 'operatorStatusChanged')
			return await pollOperators(this, event, pollBudget(this).endBy);
		return await pollChats(this);
	}
}
