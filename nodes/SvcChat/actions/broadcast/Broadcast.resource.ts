// Broadcast resource: template broadcasts through a messaging-app channel, and broadcasts over chat history (spec 4.3).
import { resource } from '../router';
import * as sendOverChatHistory from './sendOverChatHistory.operation';
import * as sendTemplate from './sendTemplate.operation';

export const broadcast = resource(
	{ sendOverChatHistory, sendTemplate },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['broadcast'] } },
		options: [
			{
				name: 'Send Over Chat History',
				value: 'sendOverChatHistory',
				description: 'Send a broadcast to visitors of past chats, with content you give as JSON',
				action: 'Send broadcast over chat history',
			},
			{
				name: 'Send Template',
				value: 'sendTemplate',
				description:
					'Send a registered message template (e.g. WhatsApp) to phone numbers; each input item is one recipient',
				action: 'Send template broadcast',
			},
		],
		default: 'sendTemplate',
	},
);
