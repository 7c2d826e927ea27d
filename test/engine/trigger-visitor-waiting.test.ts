// Visitor Waiting on n8n's engine, both lines: each wait past the threshold by the server's clock, alerted once.
import type { IDataObject } from 'n8n-workflow';

import type { Chat } from '../../nodes/SvcChat/types';
import { FLAVOURS } from '../../scripts/runtime';
import { ISO_UTC } from '../e2e/environment';
import { useEngine } from '../harness/engine';
import { publishTrigger, type PublishedTrigger } from './publishedTrigger';

/** The threshold, 1.2 seconds (0.02 minutes), and how far the server's clock moves past it. */
const WAIT_LONGER_THAN_MINUTES = 0.02;
/** The server's present is its Date header, in whole seconds: 3 s on, a wait has lasted more than 2 s by it. */
const CLOCK_STEP_MS = 3_000;

describe.each([FLAVOURS['n8n-2'], FLAVOURS['n8n-1']])('Visitor Waiting on $name', (flavour) => {
	/** The sandbox's clock: it stands still unless the test moves it, so no wait passes the threshold unseen. */
	let serverMs = Date.now();
	const env = useEngine(flavour, { seed: 25, chats: 10, now: () => new Date(serverMs) });
	let waiting: PublishedTrigger;
	let chats: Chat[];
	/** Every wait the trigger alerted, as chat@start. */
	const alerted: string[] = [];

	beforeAll(() => {
		waiting = publishTrigger(env, 'Waiting visitors', {
			emit: 'visitorWaiting',
			waitLongerThan: WAIT_LONGER_THAN_MINUTES,
			chatOutput: 'simplified',
		});
	});

	/** A poll once the server's clock has moved past the threshold: the waits it alerted. */
	async function alertsAfterThreshold() {
		// Before it, nobody has waited long enough.
		await waiting.quiet(1);
		serverMs += CLOCK_STEP_MS;
		const items = await waiting.emits();
		alerted.push(...items.map(({ chat_id, wait_began_at }) => `${chat_id}@${wait_began_at}`));
		await waiting.quiet();
		return items;
	}

	test("each wait past the threshold by the server's clock, with its item; one answered in time never", async () => {
		expect(await waiting.poll()).toEqual({ emitted: null, run: null });
		expect(waiting.savedState()).toMatchObject({ catchingUp: false });
		chats = [0, 1, 2].map(() => env.sandbox.control.visitorWaits());
		env.sandbox.control.answerChat(chats[1].id);
		const found = await alertsAfterThreshold();
		expect(found.map(({ chat_id }) => chat_id).sort()).toEqual([chats[0].id, chats[2].id].sort());
		for (const item of found) {
			const chat = env.sandbox.control.getChat(item.chat_id as Chat['id'])!;
			const latest = chat.state_history!.at(-1)!;
			expect(item).toMatchObject({
				wait_began_at: chat.messages![0].created_at,
				department_id: latest.department_id,
				operator_id: chat.operator_id,
				visitor_name: chat.visitor!.fields!.name ?? null,
				detected_at: expect.stringMatching(ISO_UTC) as string,
				chat: expect.objectContaining({ id: String(chat.id) }) as IDataObject,
			});
			// By the server's clock, in whole seconds: more than 2 s, at most 3.
			expect(item.waited_seconds).toBeGreaterThanOrEqual(2);
			expect(item.waited_seconds).toBeLessThanOrEqual(CLOCK_STEP_MS / 1000);
		}
	});

	test('answered, then the visitor writes again: a new wait, alerted once more; every wait once, after quiet polls', async () => {
		const [first] = chats;
		env.sandbox.control.answerChat(first.id);
		const again = env.sandbox.control.visitorWaits(first.id);
		expect((await alertsAfterThreshold()).map(({ chat_id }) => chat_id)).toEqual([first.id]);
		expect(alerted.sort()).toEqual(
			[
				`${String(first.id)}@${first.messages![0].created_at}`,
				`${String(first.id)}@${again.messages!.at(-1)!.created_at}`,
				`${String(chats[2].id)}@${chats[2].messages![0].created_at}`,
			].sort(),
		);
	});
});
