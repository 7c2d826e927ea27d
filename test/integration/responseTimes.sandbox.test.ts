// Response times over loopback: Get many chats (Simplified) against the sandbox's spec-shaped chats, checked against
// how the sandbox builds them: queue at creation, chatting 15 s later, closed at the end, messages spread in between.
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
				waiting_seconds: states ? 15 : null,
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
