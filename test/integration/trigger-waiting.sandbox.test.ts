// Visitor Waiting over real HTTP against a sandbox whose clock is hours away from n8n's: the alert comes when the
// sandbox's Date says the wait passed the threshold, never by n8n's clock; without a Date, when the server changes.
import type { IDataObject } from 'n8n-workflow';

import { triggerUnderTest } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';
import { manualClock } from '../sandbox/client';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Three hours ahead of n8n's clock; moved by hand.
const clock = manualClock(new Date(Date.now() + 3 * HOUR).toISOString());
const sandbox = useSandbox({ seed: 4, chats: 30, now: clock.now });

async function poll(staticData: IDataObject) {
	const { trigger, context, logger } = triggerUnderTest({
		parameters: { startFrom: 'now', emit: 'visitorWaiting', waitLongerThan: 3, chatOutput: 'raw' },
		credentials: sandbox.credentials(),
		staticData,
	});
	const items = (await trigger.poll.call(context))?.[0].map((item) => item.json) ?? [];
	return { items, logger };
}

test.each([
	['3 hours ahead of', 3 * HOUR],
	['5 hours behind', -5 * HOUR],
])(
	"a server clock %s n8n's: the alert comes once its Date passes the threshold, and once only",
	async (_, offset) => {
		// Whole seconds, as the Date header tells them: exactly 3 minutes is not yet longer than 3 minutes.
		clock.set(new Date(Math.floor((Date.now() + offset) / 1000) * 1000).toISOString());
		const staticData: IDataObject = {};
		await poll(staticData); // Now: the server's place, nothing emitted
		const chat = sandbox.control.visitorWaits();
		expect((await poll(staticData)).items).toEqual([]);
		clock.advance(3 * MINUTE);
		expect((await poll(staticData)).items).toEqual([]);
		clock.advance(1000);
		const { items } = await poll(staticData);
		expect(items).toEqual([
			expect.objectContaining({ chat_id: chat.id, waited_seconds: 181, chat: expect.any(Object) }),
		]);
		clock.advance(HOUR);
		expect((await poll(staticData)).items).toEqual([]);
	},
);

test('without a Date header, the present is the latest change: late, never early, and a warning', async () => {
	sandbox.control.setSettings({ dateHeader: false });
	const staticData: IDataObject = {};
	await poll(staticData);
	const chat = sandbox.control.visitorWaits();
	clock.advance(HOUR);
	const quiet = await poll(staticData);
	expect(quiet.items).toEqual([]);
	expect(quiet.logger.warn).toHaveBeenCalledWith(expect.stringContaining('no readable Date'));
	// Another chat changes: the server's latest change is now an hour after the wait began.
	sandbox.control.addChats(1);
	expect((await poll(staticData)).items).toEqual([expect.objectContaining({ chat_id: chat.id })]);
});

test('answered while unpublished: the next poll brings the answer, and no alert comes however late', async () => {
	const staticData: IDataObject = {};
	await poll(staticData);
	const chat = sandbox.control.visitorWaits();
	await poll(staticData);
	sandbox.control.answerChat(chat.id);
	clock.advance(HOUR);
	expect((await poll(staticData)).items).toEqual([]);
	expect(staticData.waiting).toMatchObject({ waits: [] });
});
