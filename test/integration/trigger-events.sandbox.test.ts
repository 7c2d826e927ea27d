// New Rating and Missed Chat over real HTTP against the sandbox: chats rated and missed through its control routes,
// read over several polls and pages, with redeliveries and a failed page; each rating and missed chat emitted once.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Chat } from '../../nodes/SvcChat/types';
import { triggerUnderTest } from '../harness/contexts';
import { instantPauses } from '../harness/fixtures';
import { useSandbox } from '../harness/sandboxSuite';
import { call } from '../sandbox/client';

const sandbox = useSandbox({ seed: 9, chats: 250 });

/** A control route of the sandbox, over HTTP as a person or another tool would call it. */
async function control(route: string, body: IDataObject): Promise<Chat> {
	const reply = await call(sandbox, 'POST', `/__control/${route}`, { body, auth: null });
	expect(reply.status).toBe(200);
	return reply.json as Chat;
}

/** Polls as n8n would, until the trigger's place is the server's latest change; all items of those polls. */
async function pollUntilCaughtUp(parameters: INodeParameters, staticData: IDataObject) {
	const items: IDataObject[] = [];
	for (let polls = 0; staticData.cursor !== String(sandbox.control.latestCursor()); polls++) {
		if (polls > 20) throw new Error('Not caught up after 20 polls');
		const { trigger, context } = triggerUnderTest({
			parameters,
			credentials: sandbox.credentials(),
			staticData,
		});
		items.push(...((await trigger.poll.call(context))?.[0].map((item) => item.json) ?? []));
	}
	return items;
}

/** A rating as the items and the chats both tell it: chat, value, operator, time. */
const ratingKey = (chatId: unknown, rate: IDataObject) =>
	JSON.stringify([
		chatId,
		rate.rate ?? rate.rating,
		rate.operator_id,
		rate.created_at ?? rate.rated_at,
	]);

test('New Rating: every rating once over several polls and pages, redelivered chats and a failed page; none twice', async () => {
	const staticData: IDataObject = {};
	const parameters = {
		startFrom: 'beginning',
		emit: 'newRating',
		chatOutput: 'simplified',
		options: { maxChatsPerPoll: 100 },
	};
	const history = await pollUntilCaughtUp(parameters, staticData);
	const seeded = sandbox.control
		.allVersions()
		.map((version) => sandbox.control.getChat(version.split(':')[0])!)
		.flatMap((chat) => chat.rates!.map((rate) => ratingKey(chat.id, rate)));
	expect(seeded.length).toBeGreaterThan(150);
	expect(history.map((item) => ratingKey(item.chat_id, item)).sort()).toEqual(seeded.sort());
	// The chat in Simplified has its id as text (issue 65); the rating's chat_id is as the server sent it.
	expect(history[0].chat).toMatchObject({
		id: String(history[0].chat_id),
		average_rate: expect.any(Number),
	});

	// New ratings through the control route (two equal ones in one chat), among 260 other changes: several pages.
	const [a, b] = [sandbox.control.getChat(10_001)!, sandbox.control.getChat(10_040)!];
	const equal = { rate: 1, operator_id: 2, created_at: '2025-05-01T10:00:00.000Z' };
	const expected = [
		ratingKey(a.id, (await control('chats/rate', { id: a.id, rate: 2 })).rates!.at(-1)!),
		ratingKey(b.id, (await control('chats/rate', { id: b.id, ...equal })).rates!.at(-1)!),
	];
	sandbox.control.mutateRandomChats(130);
	expected.push(
		ratingKey(b.id, (await control('chats/rate', { id: b.id, ...equal })).rates!.at(-1)!),
	);
	// The rated chats change again for other reasons, and a page fails once after its retries.
	await control('chats/update', { id: a.id });
	sandbox.control.mutateRandomChats(130);
	await control('chats/close', { id: b.id });
	sandbox.control.injectFault({ kind: '502', count: 4, path: '/api/v2/chats' });
	instantPauses();
	const failed = pollUntilCaughtUp(parameters, staticData);
	await expect(failed).rejects.toThrow();
	const pagesRead = () =>
		sandbox.control
			.requestLog()
			.filter((entry) => entry.path === '/api/v2/chats' && entry.status === 200).length;
	const pagesBefore = pagesRead();
	const later = await pollUntilCaughtUp(parameters, staticData);
	// One page per poll (Max Chats per Poll 100): the changes of more than 100 chats took several polls.
	expect(pagesRead() - pagesBefore).toBeGreaterThanOrEqual(2);
	expect(later.map((item) => ratingKey(item.chat_id, item)).sort()).toEqual(expected.sort());
	expect(later.filter((item) => item.rating === 1)).toHaveLength(2);
});

test('Missed Chat from Now: each missed chat once, its contact from fields or a contacts message; answered chats never', async () => {
	const staticData: IDataObject = {};
	const parameters = { startFrom: 'now', emit: 'missedChat', chatOutput: 'raw' };
	expect(await pollUntilCaughtUp(parameters, staticData)).toEqual([]);

	// Seeded chats closed now had an operator's answer: not missed. Mutated first, so none touches a missed chat.
	await control('chats/close', { id: 10_002 });
	sandbox.control.mutateRandomChats(120);
	const missed = [
		await control('chats/missed', {}),
		await control('chats/missed', { contact: 'message' }),
		await control('chats/missed', { contact: 'none' }),
	];
	const first = await pollUntilCaughtUp(parameters, staticData);
	expect(first.map((item) => item.chat_id)).toEqual(missed.map((chat) => chat.id));
	const fields = missed[0].visitor!.fields!;
	const left = missed[1].messages!.find((message) => message.kind === 'contacts')!
		.message as IDataObject;
	expect(
		first.map(({ visitor_name, visitor_email, visitor_phone }) => [
			visitor_name,
			visitor_email,
			visitor_phone,
		]),
	).toEqual([
		[fields.name, fields.email, fields.phone ?? null],
		[left.name, left.email, left.phone],
		[null, null, null],
	]);
	expect(first[2]).toMatchObject({
		closed_at: missed[2].state_history!.at(-1)!.at,
		chat: missed[2],
	});

	// A missed chat that changes again (a visitor's message) stays missed, and is not emitted twice.
	await control('chats/update', { id: missed[0].id });
	expect(await pollUntilCaughtUp(parameters, staticData)).toEqual([]);
});
