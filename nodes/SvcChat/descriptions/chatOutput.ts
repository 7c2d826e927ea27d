// The chat output shapes the 'Output' parameters offer: all three in the trigger, plus Selected Fields in the action node.
import type { INodePropertyOptions } from 'n8n-workflow';

import type { ChatOutputMode } from '../helpers/chatOutput';

/** Raw, Simplified and One Item per Message, in the order both nodes show them. */
export const CHAT_OUTPUT_OPTIONS: Array<INodePropertyOptions & { value: ChatOutputMode }> = [
	{ name: 'Raw', value: 'raw', description: 'The chat exactly as the API returns it' },
	{
		name: 'Simplified',
		value: 'simplified',
		description:
			'One flat record per chat: visitor, start page, category, final state, message count, average rate',
	},
	{
		name: 'One Item per Message',
		value: 'messages',
		description: 'One flat record per message, ready for a spreadsheet export',
	},
];

/** The top-level fields of a chat (spec 2.4) that Selected Fields offers; the id always comes along. */
export const SELECTABLE_CHAT_FIELDS = [
	{ name: 'Category', value: 'category' },
	{ name: 'Created At', value: 'created_at' },
	{ name: 'Messages', value: 'messages' },
	{ name: 'Operator Comment', value: 'operator_comment' },
	{ name: 'Operator ID', value: 'operator_id' },
	{ name: 'Rates', value: 'rates' },
	{ name: 'Start Page', value: 'start_page' },
	{ name: 'State History', value: 'state_history' },
	{ name: 'Subcategory', value: 'subcategory' },
	{ name: 'Visit Session', value: 'visit_session' },
	{ name: 'Visitor', value: 'visitor' },
];
