// Response times over loopback: Get many chats (Simplified) against the sandbox's spec-shaped chats, checked against
// how the sandbox builds them (queue at creation, then chatting, closed at the end), and spread as a real team's are.
import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import type { Chat } from '../../nodes/SvcChat/types';
import { createExecuteContext } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';

const sandbox = useSandbox({ seed: 5, chats: 60 });

const ms = (time: string | undefined) => Date.parse(time ?? '');
const fromStart = { resource: 'chat', operation: 'getMany', since: 'cursor', sinceCursor: '0' };

test('every chat of the sandbox gets its response times, null where they do not apply', async () => {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters: { ...fromStart, returnAll: true },
		credentials: sandbox.credentials(),
	});
	const [output] = await node.execute.call(context);
	expect(output).toHaveLength(60);
	const seen = { answered: 0, closed: 0, noStates: 0, open: 0 };
	for (const { json: item } of output) {
		const chat: Chat = sandbox.control.getChat(item.id as string | number)!;
		const messages = chat.messages!;
		// The sandbox writes messages in order, so here the first ones in the list are the first in time.
		const asked = messages.find((one) =>
			['visitor', 'file_visitor', 'contacts', 'keyboard_response'].includes(one.kind),
		);
		const answer = messages.find((one) => ['operator', 'file_operator'].includes(one.kind));
		const states = chat.state_history;
		const last = states?.at(-1);
		expect(item).toEqual(
			expect.objectContaining({
				first_response_seconds: answer
					? (ms(answer.created_at) - ms(asked!.created_at)) / 1000
					: null,
				// From the entry into the queue to the next entry (the sandbox queues a chat once, first).
				queue_seconds: states ? (ms(states[1].at) - ms(states[0].at)) / 1000 : null,
				department_id: last?.department_id ?? null,
				duration_seconds:
					last?.state === 'closed' ? (ms(last.at) - ms(chat.created_at)) / 1000 : null,
				last_activity_at: [
					...messages.map((one) => one.created_at),
					...(states ?? []).map((one) => one.at),
				]
					.sort()
					.at(-1),
			}),
		);
		seen.answered += answer ? 1 : 0;
		seen.closed += last?.state === 'closed' ? 1 : 0;
		seen.noStates += states ? 0 : 1;
		seen.open += states && last?.state !== 'closed' ? 1 : 0;
	}
	// Every case is there: answered chats, closed and open ones, and chats with state_history null.
	expect(Object.values(seen).every((count) => count > 0)).toBe(true);
});

/** Simplified records of every chat from the start, or from `sinceCursor`. */
async function simplified(sinceCursor = '0') {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters: { ...fromStart, sinceCursor, returnAll: true },
		credentials: sandbox.credentials(),
	});
	const [output] = await node.execute.call(context);
	return output.map(({ json }) => json);
}

test("the sandbox's chats, seeded and added while it runs, answer as a team does: seconds to minutes, some queued for minutes", async () => {
	const cursor = String(sandbox.control.latestCursor());
	sandbox.control.addChats(40);
	for (const records of [await simplified(), await simplified(cursor)]) {
		const first = records.flatMap((one) => one.first_response_seconds ?? []) as number[];
		const queued = records.flatMap((one) => one.queue_seconds ?? []) as number[];
		expect(first.length).toBeGreaterThan(records.length / 2);
		// Never in the same millisecond; from a few seconds to several minutes; hardly two alike.
		expect(Math.min(...first)).toBeGreaterThan(1);
		expect(Math.min(...first)).toBeLessThan(30);
		expect(Math.max(...first)).toBeGreaterThan(120);
		expect(new Set(first).size).toBeGreaterThan(first.length * 0.9);
		// Most chats are taken from the queue within a minute, some wait longer.
		const long = queued.filter((seconds) => seconds > 60).length;
		expect(long).toBeGreaterThan(0);
		expect(long).toBeLessThan(queued.length / 2);
		expect(new Set(queued).size).toBeGreaterThan(queued.length * 0.9);
	}
});
