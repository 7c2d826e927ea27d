// The "Svc Chat Trigger": a polling trigger that starts workflows for new or changed chats and never loses one.
import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { SVC_CHAT_TRIGGER_DESCRIPTION } from './descriptions/nodeDescriptions';
import { triggerProperties } from './trigger/description';
import { pollChats } from './trigger/poll';

export class SvcChatTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat Trigger',
		name: 'svcChatTrigger',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"everyChange": "Every change", "newChats": "New chats", "finishedChats": "Finished chats"}[$parameter["emit"]] }}',
		description: SVC_CHAT_TRIGGER_DESCRIPTION,
		defaults: { name: 'Svc Chat Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true }],
		properties: triggerProperties,
	};

	async poll(this: IPollFunctions) {
		return await pollChats.call(this);
	}
}
