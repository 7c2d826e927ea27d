// Chat > Get: GET /chat?id= (spec 4.7), for a number or GUID id; an unknown id is a "chat not found" error.
import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import type { Chat } from '../../types';
import { formatChats } from '../../helpers/chatOutput';
import { readRequiredText } from '../parameters';
import { chatOutputProperty, readChatOutputMode } from './output';

const properties: INodeProperties[] = [
	{
		displayName: 'Chat ID',
		name: 'chatId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1042 or 2f1c…',
		description: 'ID of the chat: a number or a GUID. Chat > Get Many lists the IDs of recent chats.',
	},
	chatOutputProperty,
];

export const description = updateDisplayOptions({ show: { resource: ['chat'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const chatId = readRequiredText(this, 'chatId', itemIndex, 'Chat ID', 'Enter the ID of a chat, e.g. from Chat > Get Many.');
	const output = readChatOutputMode(this, itemIndex);
	const reply = (await svcApiRequest.call(this, 'GET', 'chat', { qs: { id: chatId }, itemIndex })) as { chat: Chat };
	return formatChats([reply.chat], output);
}
