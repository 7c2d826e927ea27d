// New Rating and Missed Chat of Svc Chat Trigger in a real n8n (issue 44): each rating and missed chat once, across
// polls, pages, a chat delivered again and a failed poll; the filter, the items and the Transcript. Shared by 2.x and 1.x.
import type { Chat, ChatMessage, Rate } from '../../nodes/SvcChat/types';
import { pollEvery } from '../../scripts/examples';
import { nodeOutput, type StoredExecution } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import {
	ISO_UTC,
	POLL_EVERY_SECONDS,
	POLL_WAIT_MS,
	QUIET_POLLS,
	runtimeFlavour,
	sandboxAllChats,
	setPublished,
	sandboxCredentialOf,
	usePolls,
	type E2eEnvironment,
} from './environment';

/** Chats rated at once: more than a page (100), and more than the rating trigger's Max Chats per Poll. */
const RATED_AT_ONCE = 120;

type Item = Record<string, unknown>;
interface Trigger {
	node: string;
	parameters: Record<string, unknown>;
	workflowId: string;
}

/** Creates each trigger's workflow through REST, as the editor does, and publishes them; they start from Now. */
async function publishTriggers(env: E2eEnvironment, triggers: Trigger[]) {
	const rest = await env.n8n.rest();
	const credentials = await sandboxCredentialOf(env.n8n);
	for (const trigger of triggers) {
		const parameters = { pollTimes: pollEvery(POLL_EVERY_SECONDS), ...trigger.parameters };
		const node = { id: `e2e44000-${trigger.node.length}`, name: trigger.node, parameters };
		const workflow: Omit<Workflow, 'id'> = {
			name: `Chat events e2e: ${trigger.node}`,
			nodes: [
				{
					...node,
					type: 'n8n-nodes-svc.svcChatTrigger',
					typeVersion: 1,
					position: [0, 0],
					credentials,
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			active: false,
		};
		trigger.workflowId = String((await rest('POST', 'workflows', workflow)).id);
	}
	await env.n8n.publishWorkflows(triggers.map(({ workflowId }) => workflowId));
}

/**
 * Defines the scenario's tests on `env`, an environment whose n8n runs by the time its tests start; its sandbox has
 * chats with an operator, more than RATED_AT_ONCE. Both triggers are created and published through REST, as the editor
 * does, after the tests defined before this call (they run in order), and start from Now.
 */
export function testChatEvents(env: E2eEnvironment): void {
	describe(`New Rating and Missed Chat in real n8n (${runtimeFlavour().name})`, () => {
		// Ratings 1 to 2 with the Transcript, two polls for RATED_AT_ONCE chats; missed chats raw, a poll reading two pages.
		const rating: Trigger = {
			node: 'Bad ratings',
			parameters: {
				emit: 'newRating',
				ratings: { range: { from: 1, to: 2 } },
				chatOutput: 'transcript',
				options: { maxChatsPerPoll: 100 },
			},
			workflowId: '',
		};
		const missed: Trigger = {
			node: 'Missed chats',
			parameters: { emit: 'missedChat', chatOutput: 'raw' },
			workflowId: '',
		};
		const triggers = [rating, missed];
		/** Every rating the scenario gave, as the sandbox stored it, with its chat's id. */
		const given: Array<Rate & { chat_id: Chat['id'] }> = [];
		let chats: Chat[];

		beforeAll(async () => {
			({ chats } = await sandboxAllChats(env.sandbox));
			await publishTriggers(env, triggers);
		});

		const polls = usePolls(env, '/api/v2/chats', () => triggers.length);
		// Their polls would only load the n8n that the file's later scenarios share.
		afterAll(async () => {
			for (const { workflowId } of triggers)
				if (workflowId) await setPublished(env, workflowId, false);
		});

		/**
		 * The executions of a trigger's workflow: the items of the successful ones, in order, and what each poll the node
		 * failed said. A poll that n8n fails itself, around the node (under load, its database pool starved: docs/reliability.md, "A
		 * poll that fails"), is stored with an error that has no message, which the node's errors always have: it is not
		 * the node's, and the items show that it lost and repeated nothing.
		 */
		async function runsOf({ workflowId, node }: Trigger) {
			const all = await env.n8n.readExecutions(workflowId, { all: true });
			for (const { mode } of all) expect(mode).toBe('trigger');
			const executions = polls.withoutFailedByN8n(all);
			const ok = executions.filter(({ status }: StoredExecution) => status === 'success');
			const byNode = executions.filter(({ status }: StoredExecution) => status === 'error');
			return {
				items: ok.flatMap((execution) => nodeOutput(execution.data, node)),
				successes: ok.length,
				failures: byNode.map(
					({ id, data }) => `execution ${id}: ${JSON.stringify(data.resultData.error)}`,
				),
			};
		}

		/** Waits until a trigger has emitted `count` items in all, then for quiet polls; returns its runs. */
		async function itemsAfterChange(trigger: Trigger, count: number) {
			await waitUntil(async () => (await runsOf(trigger)).items.length >= count, {
				what: `${count} items from "${trigger.node}"`,
				timeoutMs: POLL_WAIT_MS,
				output: () => env.n8n.serverOutput.slice(-4_000),
				everyMs: 500,
			});
			await polls.after(QUIET_POLLS);
			return await runsOf(trigger);
		}

		/** Rates a chat through the sandbox, by its own operator, and records the rating the sandbox stored. */
		function rate(chat: Chat, value: number, createdAt?: string) {
			const stored = env.sandbox.control.rateChat(chat.id, {
				rate: value,
				operator_id: typeof chat.operator_id === 'number' ? chat.operator_id : 1,
				created_at: createdAt,
			});
			given.push({ ...stored.rates!.at(-1)!, chat_id: chat.id });
		}

		/** The items New Rating must have emitted for the ratings given: those of 1 or 2, by chat id, then time. */
		const expectedRatings = () =>
			given
				.filter(({ rate }) => rate <= 2)
				.map(({ chat_id, rate, operator_id, created_at }) => ({
					chat_id,
					rating: rate,
					operator_id,
					rated_at: created_at,
				}));
		const ratingKeys = (items: Item[]) =>
			items
				.map(({ chat_id, rating, operator_id, rated_at }) => ({
					chat_id,
					rating,
					operator_id,
					rated_at,
				}))
				.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

		test('activation: both catch up to the present and emit nothing; the seeded ratings are older than their start', async () => {
			expect(chats.length).toBeGreaterThan(RATED_AT_ONCE);
			expect(chats.some((chat) => chat.rates?.some(({ rate }) => rate <= 2))).toBe(true);
			for (const { workflowId, node } of triggers)
				await waitUntil(
					async () =>
						(await env.n8n.staticData(workflowId))?.[`node:${node}`]?.catchingUp === false,
					{ what: `the first poll of "${node}"`, timeoutMs: POLL_WAIT_MS, everyMs: 500 },
				);
			await polls.after(2);
			for (const trigger of triggers)
				expect(await runsOf(trigger)).toEqual({ items: [], successes: 0, failures: [] });
		});

		test('ratings of 120 chats at once, over two polls and two pages: each rating of 1 or 2 once, with its Transcript', async () => {
			const equalAt = new Date().toISOString();
			// One synchronous loop in this process: no poll sees part of it. The first chat gets two equal ratings.
			chats.slice(0, RATED_AT_ONCE).forEach((chat, index) => rate(chat, (index % 5) + 1, equalAt));
			rate(chats[0], 1, equalAt);
			const expected = expectedRatings();
			const runs = await itemsAfterChange(rating, expected.length);
			expect(ratingKeys(runs.items)).toEqual(ratingKeys(expected));
			// Max Chats per Poll 100: the first page in one poll, the rest in the next, each with ratings to emit.
			expect(runs).toMatchObject({ successes: 2, failures: [] });
			expect(runs.items.filter(({ chat_id }) => chat_id === chats[0].id)).toHaveLength(2);

			const operators = new Map(
				env.sandbox.control.getOperators().map(({ id, full_name }) => [id, full_name]),
			);
			for (const item of runs.items) {
				expect(item.detected_at).toMatch(ISO_UTC);
				// The rated operator by name, from the poll's one GET /operators (shared with the Transcript).
				expect(item.operator_name).toBe(operators.get(item.operator_id as number));
				const chat = env.sandbox.control.getChat(item.chat_id as Chat['id'])!;
				const { transcript, ...record } = item.chat as Item & { transcript: string };
				expect(record).toMatchObject({ id: chat.id, message_count: chat.messages?.length ?? 0 });
				const lines = transcript.split('\n');
				expect(lines[0]).toBe(`Chat ${String(chat.id)}, times in ${env.n8n.env.GENERIC_TIMEZONE}`);
				expect(lines).toHaveLength(Math.max(1, chat.messages?.length ?? 0) + 1);
				(chat.messages ?? []).forEach((message: ChatMessage, index) => {
					if (message.kind === 'operator' && operators.has(message.operator_id as number))
						expect(lines[index + 1]).toContain(
							`] ${operators.get(message.operator_id as number)} (operator): `,
						);
				});
			}
			// Ratings of 3 to 5 were given too: the filter left them out.
			expect(given.filter(({ rate }) => rate > 2).length).toBeGreaterThan(0);
			expect(await runsOf(missed)).toEqual({ items: [], successes: 0, failures: [] });
		});

		test('a rated chat delivered again for a message or a closing repeats no rating; a new one, even an equal one, comes alone', async () => {
			const before = (await runsOf(rating)).items.length;
			env.sandbox.control.updateChat(chats[0].id);
			env.sandbox.control.closeChat(chats[1].id);
			await polls.after(QUIET_POLLS);
			expect((await runsOf(rating)).items).toHaveLength(before);
			// The third rating of 1 at the same time in the first chat is a rating of its own.
			const [first] = given;
			rate(chats[0], 1, first.created_at);
			rate(chats[1], 2);
			const runs = await itemsAfterChange(rating, before + 2);
			expect(ratingKeys(runs.items)).toEqual(ratingKeys(expectedRatings()));
		});

		test('missed chats: each once, with the contact from its fields, from a contacts message, or none', async () => {
			const added = (['fields', 'message', 'none'] as const).map((contact) =>
				env.sandbox.control.addMissedChat(contact),
			);
			const runs = await itemsAfterChange(missed, added.length);
			expect(runs.failures).toEqual([]);
			const contactOf = (chat: Chat, member: 'name' | 'email' | 'phone') => {
				const message = [...(chat.messages ?? [])].reverse().find(({ kind }) => kind === 'contacts')
					?.message as Record<string, string> | undefined;
				return chat.visitor?.fields?.[member] ?? message?.[member] ?? null;
			};
			expect(runs.items).toEqual(
				added.map((chat) => ({
					chat_id: chat.id,
					closed_at: chat.state_history!.at(-1)!.at,
					visitor_name: contactOf(chat, 'name'),
					visitor_email: contactOf(chat, 'email'),
					visitor_phone: contactOf(chat, 'phone'),
					detected_at: expect.stringMatching(ISO_UTC) as string,
					chat,
				})),
			);
			// The contacts: in the fields, only in a message, nowhere.
			expect(runs.items.map(({ visitor_email }) => typeof visitor_email)).toEqual([
				'string',
				'string',
				'object',
			]);
			expect(added[1].visitor?.fields?.email).toBeUndefined();
			// Closed again, a missed chat is delivered again, and not emitted again.
			env.sandbox.control.closeChat(added[0].id);
			await polls.after(QUIET_POLLS);
			expect((await runsOf(missed)).items).toHaveLength(added.length);
		});

		test('a failed poll keeps the place: the rating and the missed chat after it come once, at the next poll', async () => {
			const before = { rating: await runsOf(rating), missed: await runsOf(missed) };
			const served500 = () => polls.reads().filter(({ status }) => status === 500).length;
			const faultsBefore = served500();
			// The next poll of each trigger gets an error page (a 500, not retried) on its first request.
			env.sandbox.control.injectFault({ kind: 'html', path: '/api/v2/chats', count: 2 });
			rate(chats[2], 1);
			const chat = env.sandbox.control.addMissedChat('fields');
			const ratings = await itemsAfterChange(rating, before.rating.items.length + 1);
			const missing = await itemsAfterChange(missed, before.missed.items.length + 1);
			expect(served500() - faultsBefore).toBe(2);
			// n8n saved each failed poll as a failed execution; nothing was lost or repeated.
			expect([...ratings.failures, ...missing.failures]).toHaveLength(2);
			expect(ratingKeys(ratings.items)).toEqual(ratingKeys(expectedRatings()));
			expect(missing.items.slice(before.missed.items.length)).toEqual([
				expect.objectContaining({ chat_id: chat.id, visitor_email: chat.visitor?.fields?.email }),
			]);
		});
	});

	describe(`Visitor Waiting in real n8n (${runtimeFlavour().name})`, () => {
		// A threshold of 1.2 seconds (0.02 minutes), the chat Simplified; published after the tests above, from Now.
		const waiting: Trigger = {
			node: 'Waiting visitors',
			parameters: { emit: 'visitorWaiting', waitLongerThan: 0.02, chatOutput: 'simplified' },
			workflowId: '',
		};
		// The two triggers above poll on: each round of polls reads /chats three times.
		const polls = usePolls(env, '/api/v2/chats', () => 3);
		let chats: Chat[] = [];
		beforeAll(async () => {
			await publishTriggers(env, [waiting]);
			await waitUntil(
				async () =>
					(await env.n8n.staticData(waiting.workflowId))?.[`node:${waiting.node}`]?.catchingUp ===
					false,
				{ what: 'the first poll of the waiting trigger', timeoutMs: POLL_WAIT_MS, everyMs: 500 },
			);
		});

		/** The items of the trigger's successful polls, of the chats here only (other scenarios' chats may wait too). */
		async function items() {
			const all = polls.withoutFailedByN8n(
				await env.n8n.readExecutions(waiting.workflowId, { all: true }),
			);
			expect(all.filter(({ status }) => status !== 'success')).toEqual([]);
			const ids = chats.map(({ id }) => id);
			return all
				.flatMap((execution) => nodeOutput(execution.data, waiting.node))
				.filter(({ chat_id }) => ids.includes(chat_id as Chat['id']));
		}
		const emitted = async (count: number) =>
			await waitUntil(async () => (await items()).length >= count, {
				what: `${count} waiting visitors`,
				timeoutMs: POLL_WAIT_MS,
				output: () => env.n8n.serverOutput.slice(-4_000),
				everyMs: 500,
			});

		test("each wait past the threshold by the server's clock, with its item; one answered in time never", async () => {
			chats = [0, 1, 2].map(() => env.sandbox.control.visitorWaits());
			env.sandbox.control.answerChat(chats[1].id);
			await emitted(2);
			const found = await items();
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
					chat: expect.objectContaining({ id: chat.id }) as Item,
				});
				expect(item.waited_seconds).toBeGreaterThanOrEqual(1);
			}
		});

		test('answered, then the visitor writes again: a new wait, alerted once more; every wait once, after quiet polls', async () => {
			const [first] = chats;
			env.sandbox.control.answerChat(first.id);
			const again = env.sandbox.control.visitorWaits(first.id);
			await emitted(3);
			await polls.after(QUIET_POLLS);
			const found = await items();
			const waits = found.map(
				({ chat_id, wait_began_at }) => `${String(chat_id)}@${String(wait_began_at)}`,
			);
			expect(waits.sort()).toEqual(
				[
					`${String(first.id)}@${first.messages![0].created_at}`,
					`${String(first.id)}@${again.messages!.at(-1)!.created_at}`,
					`${String(chats[2].id)}@${chats[2].messages![0].created_at}`,
				].sort(),
			);
		});
	});
}
