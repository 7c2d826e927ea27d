// Missed Chat: a finished chat no operator answered, once; the visitor's contact from the fields or a contacts message.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Chat, ChatMessage } from '../../../nodes/SvcChat/types';
import {
	everyOperatorsRequest,
	failPage,
	makeChat,
	microsAt,
	replyPage,
	triggerHarness,
} from './fixtures';
import { DAY, freezeClock, HOUR, NOW } from './clock';

freezeClock();

const missedChat = (more: INodeParameters = {}) => ({
	startFrom: 'beginning',
	emit: 'missedChat',
	chatOutput: 'raw',
	...more,
});

const CLOSED_AT = '2025-05-01T10:30:00.000Z';

/** A chat with these message kinds (and messages of them), its last state at CLOSED_AT. */
function chatWith(
	id: number | string,
	kinds: string[],
	{ states = ['queue', 'closed'], extra = {} }: { states?: string[]; extra?: Partial<Chat> } = {},
): Chat {
	const chat = makeChat(id, { states });
	chat.messages = kinds.map((kind, index) => ({
		id: `${id}-m${index}`,
		created_at: '2025-05-01T10:00:00.000Z',
		kind,
		message: `a ${kind} message`,
	}));
	chat.state_history!.at(-1)!.at = CLOSED_AT;
	return { ...chat, ...extra };
}

const chatIds = (items: IDataObject[] | null) => (items ?? []).map((item) => item.chat_id);

test("missed: the latest state is closed and no message is an operator's answer; busy notices and system kinds are none", async () => {
	const noAnswer = [
		'visitor',
		'operator_busy',
		'info',
		'events',
		'for_operator',
		'contacts_request',
		'keyboard',
		'a_kind_the_spec_does_not_list',
	];
	const withoutMessages = chatWith('no messages', []);
	delete withoutMessages.messages;
	replyPage(
		0,
		[
			chatWith('answered', ['visitor', 'operator_busy', 'operator']),
			chatWith('file answer', ['visitor', 'file_operator']),
			chatWith('busy only', noAnswer),
			chatWith('open', ['visitor'], { states: ['queue'] }),
			chatWith('reopened', ['visitor'], { states: ['closed', 'chatting'] }),
			chatWith('no state history', ['visitor'], { extra: { state_history: null } }),
			withoutMessages,
			chatWith('empty', []),
		],
		100,
	);
	expect(chatIds(await triggerHarness(missedChat(), {}).poll())).toEqual([
		'busy only',
		'no messages',
		'empty',
	]);
});

test("the item: the chat id, when it closed, the visitor's name, email and phone, detected_at and the chat", async () => {
	const chat = chatWith(1, ['visitor'], {
		extra: {
			visitor: {
				id: 'v1',
				fields: { name: 'Ines Moreau', email: 'ines@mail.example', phone: '+1555' },
			},
		},
	});
	replyPage(0, [chat], 100);
	expect(await triggerHarness(missedChat(), {}).poll()).toEqual([
		{
			chat_id: 1,
			closed_at: CLOSED_AT,
			visitor_name: 'Ines Moreau',
			visitor_email: 'ines@mail.example',
			visitor_phone: '+1555',
			detected_at: new Date(NOW).toISOString(),
			chat,
		},
	]);
});

describe('the contact: each of name, email and phone from the visitor fields, else the latest contacts message', () => {
	const contacts = (message: unknown): ChatMessage =>
		({ id: 'c', created_at: CLOSED_AT, kind: 'contacts', message }) as ChatMessage;
	const contactOf = async (chat: Chat) => {
		replyPage(0, [chat], 100);
		const [item] = (await triggerHarness(missedChat(), {}).poll())!;
		return [item.visitor_name, item.visitor_email, item.visitor_phone];
	};

	test('the latest contacts message, its missing members null (an earlier message does not fill them)', async () => {
		const chat = chatWith(1, ['visitor']);
		chat.messages!.push(
			contacts({ name: 'Old Name', email: 'old@mail.example', phone: '+1000' }),
			contacts({ name: 'Mark Kim', email: 'mark@mail.example' }),
		);
		expect(await contactOf(chat)).toEqual(['Mark Kim', 'mark@mail.example', null]);
	});

	test('fields first, member by member; empty fields count as none', async () => {
		const chat = chatWith(1, ['visitor'], {
			extra: { visitor: { id: 'v', fields: { name: 'Yuki Tanaka', email: ' ' } } },
		});
		chat.messages!.push(contacts({ name: 'Someone', email: 'yuki@mail.example', phone: '+4930' }));
		expect(await contactOf(chat)).toEqual(['Yuki Tanaka', 'yuki@mail.example', '+4930']);
	});

	test('one rule for the item and its chat: Simplified and Transcript say the same contact as the item', async () => {
		const chat = chatWith(1, ['visitor'], {
			extra: { visitor: { id: 'v', fields: { email: 'priya@mail.example' } } },
		});
		chat.messages!.push(contacts({ name: 'Priya Patel', phone: '+4420' }));
		everyOperatorsRequest();
		for (const chatOutput of ['simplified', 'transcript']) {
			replyPage(0, [chat], 100);
			const [item] = (await triggerHarness(missedChat({ chatOutput }), {}).poll())!;
			const inner = item.chat as IDataObject;
			const contact = ['Priya Patel', 'priya@mail.example', '+4420'];
			expect([item.visitor_name, item.visitor_email, item.visitor_phone]).toEqual(contact);
			expect([inner.visitor_name, inner.visitor_email, inner.visitor_phone]).toEqual(contact);
		}
	});

	test('a contacts message that is text, not an object, and a visitor without fields give nulls', async () => {
		const chat = chatWith(1, ['visitor'], { extra: { visitor: { id: 'v' } } });
		chat.messages!.push(contacts('call me at +1555'));
		expect(await contactOf(chat)).toEqual([null, null, null]);
	});
});

test('each missed chat once across polls; a chat closed before the Start Date is not new', async () => {
	const startDate = '2025-05-01T00:00:00.000Z';
	const from = microsAt(Date.parse(startDate));
	const staticData: IDataObject = {};
	const parameters = missedChat({ startFrom: 'date', startDate });
	const before = chatWith('before', ['visitor']);
	before.state_history!.at(-1)!.at = '2025-04-30T23:59:59.000Z';
	const undated = chatWith('undated', ['visitor']);
	delete (undated.state_history!.at(-1) as IDataObject).at;
	replyPage(from, [before, chatWith('after', ['visitor']), undated], `${from}1`);
	expect(chatIds(await triggerHarness(parameters, staticData).poll())).toEqual([
		'after',
		'undated',
	]);

	// A late visitor message: the chat comes again, still missed, and is not told twice.
	replyPage(`${from}1`, [chatWith('after', ['visitor', 'visitor']), undated], `${from}2`);
	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
	expect(staticData.events).toMatchObject({ of: 'missedChat', from: startDate });

	failPage(`${from}2`);
	await expect(triggerHarness(parameters, staticData).poll()).rejects.toThrow('(502)');
	expect(staticData.cursor).toBe(`${from}2`);
});

test('switching between New Rating and Missed Chat starts the memory again, from the place the trigger has', async () => {
	const place = Date.parse('2025-05-01T10:00:00.000Z');
	const staticData: IDataObject = {
		startedFrom: 'now',
		cursor: microsAt(place),
		catchingUp: false,
	};
	const parameters = missedChat({ startFrom: 'now' });
	replyPage(microsAt(place), [chatWith(1, ['visitor'])], `${microsAt(place)}1`);
	expect(chatIds(await triggerHarness(parameters, staticData).poll())).toEqual([1]);
	expect(staticData.events).toMatchObject({
		of: 'missedChat',
		from: new Date(place).toISOString(),
	});

	replyPage(`${microsAt(place)}1`, [], `${microsAt(place)}2`);
	await triggerHarness({ ...parameters, emit: 'newRating' }, staticData).poll();
	expect(staticData.events).toEqual({ of: 'newRating', from: expect.any(String), seen: [] });
});

test('Fetch Test Event shows recent missed chats without touching the state; with none, it says so', async () => {
	const staticData: IDataObject = {};
	replyPage(
		microsAt(NOW - HOUR),
		[chatWith(1, ['visitor']), chatWith(2, ['operator'])],
		microsAt(NOW),
		true,
	);
	replyPage(microsAt(NOW), [], microsAt(NOW));
	const sample = await triggerHarness(missedChat(), staticData, 'manual').poll();
	expect(chatIds(sample)).toEqual([1]);
	expect(staticData).toEqual({});

	for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
		replyPage(microsAt(NOW - lookBack), [], microsAt(NOW));
	replyPage(0, [chatWith(2, ['operator'])], microsAt(NOW));
	await expect(triggerHarness(missedChat(), staticData, 'manual').poll()).rejects.toThrow(
		'No missed chat found in recently changed chats',
	);
});
