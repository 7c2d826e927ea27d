// What the spec permits, against the sandbox: minimal list entries in every output, a Get Many cursor that always
// moves, and Set Status with a condition sent once. Real node code over loopback HTTP with n8n's request stack.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import { finalState } from '../../nodes/SvcChat/helpers/chat';
import type { Chat } from '../../nodes/SvcChat/types';
import { createExecuteContext, triggerUnderTest } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';

const CHATS = 1000;
const sandbox = useSandbox({ seed: 5, chats: CHATS });
const credentials = sandbox.credentials;

async function run(parameters: INodeParameters, continueOnFail = false): Promise<IDataObject[]> {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters,
		credentials: credentials(),
		continueOnFail,
	});
	const [output] = await node.execute.call(context);
	return output.map((item) => item.json);
}

function trigger(
	parameters: INodeParameters,
	staticData: IDataObject = {},
	mode: 'trigger' | 'manual' = 'trigger',
) {
	const { trigger: node, context } = triggerUnderTest({
		parameters,
		credentials: credentials(),
		staticData,
		mode,
	});
	return async () => (await node.poll.call(context))?.[0].map((item) => item.json) ?? [];
}

const allChats = (): Chat[] => {
	const chats: Chat[] = [];
	for (const id of sandbox.control.allVersions().map((version) => version.split(':')[0])) {
		if (!chats.some((chat) => String(chat.id) === id)) chats.push(sandbox.control.getChat(id)!);
	}
	return chats;
};

describe('Chat > Get Many with Include Cursor, fed back until done', () => {
	test.each([
		[1, false],
		[50, false],
		[150, false],
		[50, true],
	])(
		'Limit %i (minimal entries %s) reads every chat once and terminates',
		async (limit, minimal) => {
			sandbox.control.setSettings({ minimalChatsInLists: minimal });
			const seen: string[] = [];
			let cursor = '0';
			// Each run reads at least one whole page of 100; a cursor that did not move would hit this bound.
			const maxRuns = Math.ceil(CHATS / 100) + 2;
			let runs = 0;
			for (; runs < maxRuns; runs++) {
				const output = await run({
					resource: 'chat',
					operation: 'getMany',
					since: 'cursor',
					sinceCursor: cursor,
					limit,
					output: 'simplified',
					options: { includeCursor: true },
				});
				if (output.length === 0) break;
				seen.push(...output.map((item) => String(item.id)));
				expect(output.every((item) => item.visitor_id !== null)).toBe(true);
				cursor = String(output[0].last_ts);
			}
			expect(runs).toBeLessThan(maxRuns);
			expect(seen).toHaveLength(CHATS);
			expect(new Set(seen).size).toBe(CHATS);
		},
	);
});

describe('minimal list entries are read in full', () => {
	// A smaller sandbox: every output mode of every Emit reads all of it.
	sandbox.replaceWithin({ seed: 6, chats: 150, settings: { minimalChatsInLists: true } });

	test.each(['everyChange', 'newChats', 'finishedChats'])(
		'the trigger, Emit %s, in every Output mode',
		async (emit) => {
			const chats = allChats();
			const wanted =
				emit === 'finishedChats' ? chats.filter((chat) => finalState(chat) === 'closed') : chats;
			for (const output of ['raw', 'simplified', 'messages']) {
				const poll = trigger({
					startFrom: 'beginning',
					emit,
					output,
					options: { maxChatsPerPoll: 5000 },
				});
				const items = await poll();
				const byJson = (list: unknown[]) => list.map((entry) => JSON.stringify(entry)).sort();
				if (output === 'raw') expect(byJson(items)).toEqual(byJson(wanted));
				if (output === 'simplified')
					expect(items.map((item) => item.final_state).sort()).toEqual(
						wanted.map(finalState).sort(),
					);
				const messages = wanted.reduce((sum, chat) => sum + (chat.messages?.length ?? 0), 0);
				if (output === 'messages') expect(items).toHaveLength(messages);
			}
		},
	);

	test('Fetch Test Event shows full chats', async () => {
		const items = await trigger(
			{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
			{},
			'manual',
		)();
		expect(items.length).toBeGreaterThan(0);
		for (const item of items) expect(item).toEqual(sandbox.control.getChat(item.id as string));
	});

	test('the trigger fails the poll, and keeps its cursor, when a listed chat cannot be read', async () => {
		const staticData: IDataObject = {};
		const poll = trigger(
			{ startFrom: 'beginning', emit: 'everyChange', output: 'raw' },
			staticData,
		);
		// Every GET /chat fails, retries included.
		sandbox.control.injectFault({ kind: '502', path: '/api/v2/chat', percent: 100 });
		await expect(poll()).rejects.toThrow(/was listed with only its id and created_at/);
		expect(staticData.cursor).toBeUndefined();
		sandbox.control.clearFaults();
		const items = await poll();
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((item) => item.visitor !== undefined)).toBe(true);
	});
});

describe('the trigger idles through every last_ts an empty page may carry', () => {
	test.each(['zero', 'null', 'missing', 'latest', 'since'] as const)(
		'emptyPageLastTs %s',
		async (mode) => {
			const staticData: IDataObject = {};
			const poll = trigger(
				{
					startFrom: 'beginning',
					emit: 'everyChange',
					output: 'raw',
					options: { maxChatsPerPoll: 5000 },
				},
				staticData,
			);
			expect(await poll()).toHaveLength(CHATS);
			const caughtUp = staticData.cursor;
			expect(caughtUp).toBe(String(sandbox.control.latestCursor()));
			sandbox.control.setSettings({ emptyPageLastTs: mode });
			// Idle polls: nothing is emitted again, and the cursor stays where it was (a 0 would replay the whole history).
			expect(await poll()).toEqual([]);
			expect(await poll()).toEqual([]);
			expect(staticData.cursor).toBe(caughtUp);
			const [changed] = sandbox.control.mutateRandomChats(1);
			expect((await poll()).map((chat) => chat.id)).toEqual([changed.id]);
		},
	);
});

describe('Operator > Set Status with a condition', () => {
	const agentStatusRequests = () =>
		sandbox.control.requestLog().filter((entry) => entry.path === '/api/v2/rt/agent_status');

	test('is sent once when the connection drops, and the outcome is called unknown', async () => {
		sandbox.control.injectFault({ kind: 'reset', path: '/api/v2/rt/agent_status' });
		const [item] = await run(
			{
				resource: 'operator',
				operation: 'setStatus',
				email: 'anna@svc.test',
				status: 'dinner',
				options: { initialStatuses: ['online'] },
			},
			true,
		);
		expect(agentStatusRequests()).toHaveLength(1);
		expect(item.error).toContain('closed the connection');
		expect(item.description).toContain('The outcome is unknown');
	});

	test('without a condition, it is retried after a dropped connection', async () => {
		sandbox.control.injectFault({ kind: 'reset', path: '/api/v2/rt/agent_status' });
		const [item] = await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'anna@svc.test',
			status: 'dinner',
		});
		expect(agentStatusRequests()).toHaveLength(2);
		expect(item).toEqual({ result: 'ok', email: 'anna@svc.test', status: 'dinner' });
	});
});
