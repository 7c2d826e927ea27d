// Chat > Get: GET /chat?id= (spec 4.7), for a number or GUID id; an unknown id is reported as "chat not found".
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { chatFormatter, chatOutputProperties, readChatOutputMode } from '../../output/chatOutput';
import { itemParameters } from '../../parameters';
import { listLocator } from '../../descriptions/parameterBlocks';

const MAX_CHAT_ID_LENGTH = 1000;

export const properties: INodeProperties[] = [
	listLocator(
		{
			displayName: 'Chat',
			name: 'chatId',
			description:
				'The chat to get. From List shows recently changed chats, in the order they changed (the latest last); search by visitor or category, or type a chat ID to find that chat however old.',
			searchListMethod: 'searchChats',
		},
		{ displayName: 'By ID', name: 'id', placeholder: 'e.g. 1042' },
	),
	...chatOutputProperties,
];

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	const chatId = read.requiredText('chatId', {
		fix: 'Pick a chat from the list, or enter its ID, e.g. from Get many chats.',
	});
	// A number or a GUID (spec 2.4); a much longer "ID" is a mapping mistake, and servers refuse such URLs without saying why.
	if (chatId.length > MAX_CHAT_ID_LENGTH) {
		throw read.fail(
			`'${read.label('chatId')}' is ${chatId.length} characters long, not a chat ID`,
			"Map the chat's id field, e.g. {{ $json.id }}.",
		);
	}
	const output = readChatOutputMode(this, itemIndex);
	const reply = await svcRequest(this, 'chat', { qs: { id: chatId }, itemIndex });
	const format = await chatFormatter(this, output, { itemIndex, perNodeRun: true });
	return format([reply.chat]);
}
