// Every workflow in examples/ on n8n's engine in-process (run, called with its pinned request, or published and polled), checked against the sandbox.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { finalState } from '../../nodes/SvcChat/helpers/chat';
import type { Chat, Operator, OperatorStatsRow } from '../../nodes/SvcChat/types';
import {
	ALERT_CLOCK,
	EXAMPLE_IDS,
	findExample,
	lunchCopy,
	outputsOf,
	pinnedBody,
	pollingCopies,
	RATED_CHATS,
	readExamples,
} from '../../scripts/examples';
import { nodeItems, nodeOutput } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { FLAVOURS } from '../../scripts/runtime';
import { sandboxAllChats, sandboxGet } from '../e2e/environment';
import { useEngine, type EngineUnderTest } from '../harness/engine';

/** How far the sandbox's clock is ahead of the real one: example 10's visitor waits minutes in no time. */
let serverAheadMs = 0;
// The demo's data set, as `npm start` has it.
const env = useEngine(FLAVOURS['n8n-2'], {
	seed: 1,
	chats: 30,
	regularVisitor: true,
	now: () => new Date(Date.now() + serverAheadMs),
});

const examples = readExamples();
const example = (id: string) => findExample(examples, id);
let operatorsBefore: Operator[];
beforeAll(() => {
	operatorsBefore = env.sandbox.control.getOperators();
});

/** The examples this file ran, by their id in examples/ (a copy counts for its example). */
const ran = new Set<string>();
type RunOptions = Omit<Parameters<EngineUnderTest['engine']['run']>[1], 'credentials'>;
type Credentials = EngineUnderTest['credentials'];

/** Runs an example, or a copy of it, to its end, which must be a success. */
async function run(
	workflow: Workflow,
	options: RunOptions = {},
	exampleId = workflow.id,
	credentials: Credentials = env.credentials,
) {
	ran.add(exampleId);
	const result = await env.engine.run(workflow, { credentials, ...options });
	expect({ status: result.status, error: result.error }).toEqual({ status: 'success' });
	return result;
}

/** A webhook example called as its caller would: the request pinned on its Webhook node, with `body` if given. */
async function callWebhook(
	exampleId: string,
	webhook: string,
	body?: object,
	credentials?: Credentials,
) {
	const workflow = example(exampleId);
	const [request] = workflow.pinData![webhook] as INodeExecutionData[];
	const posted = { ...request.json, body: body ?? pinnedBody(workflow, webhook) };
	const options: RunOptions = { from: webhook, mode: 'webhook', items: [{ json: posted }] };
	return await run(workflow, options, exampleId, credentials);
}

/** An example run from the node `from` on fixed items in `timezone`, as if the nodes before it had given them. */
async function runOnItems(exampleId: string, from: string, items: IDataObject[], timezone: string) {
	const workflow = example(exampleId);
	const inZone = { ...workflow, settings: { ...workflow.settings, timezone } };
	const { data } = await run(inZone, { from, items: items.map((json) => ({ json })) });
	return (node: string) => nodeOutput(data, node);
}

/** An example's trigger, published: each poll as n8n's schedule makes it, here one after the other, by hand. */
function publish(workflow: Workflow, exampleId = workflow.id) {
	ran.add(exampleId);
	const trigger = env.engine.publish(workflow, { credentials: env.credentials });
	return {
		/** A poll that emits, and the run of the rest of the workflow it started, which must be a success. */
		async emits() {
			const { emitted, run, error } = await trigger.poll();
			expect({ error, emitted: emitted !== null, status: run?.status }).toEqual({
				emitted: true,
				status: 'success',
			});
			return run!;
		},
		/** Polls that emit nothing: an item emitted twice (or too early) would show. */
		async quiet(polls = 1) {
			for (let poll = 0; poll < polls; poll++)
				expect(await trigger.poll()).toEqual({ emitted: null, run: null });
		},
	};
}

const rtRequests = (command: string) =>
	env.sandbox.control
		.requestLog()
		.filter((entry) => entry.method === 'POST' && entry.path === `/api/v2/rt/${command}`);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** "2024-05-01 14:03:07" in `timeZone`, as the transcript and example 8's alert write a time. */
const localTime = (iso: string, timeZone: string) =>
	new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(
		new Date(iso),
	);

test('each example is an importable workflow named "Svc: …", with a sticky note, using the sandbox credential', () => {
	expect(examples.map((one) => one.id).sort()).toEqual(Object.values(EXAMPLE_IDS).sort());
	for (const one of examples) {
		// One pattern, so that they sort together in n8n's workflow list and read as one set.
		expect(one.name).toMatch(/^Svc: \S/);
		const note = one.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote');
		expect(String(note?.parameters.content)).toMatch(/^## /);
		// n8n accepts workflow ids of up to 21 characters.
		expect(one.id.length).toBeLessThanOrEqual(21);
		const svcNodes = one.nodes.filter((node) => node.type.startsWith('n8n-nodes-svc.'));
		expect(svcNodes.length).toBeGreaterThan(0);
		for (const node of svcNodes)
			expect(node.credentials).toEqual({ svcApi: { id: 'svcSandboxCred01', name: 'Svc sandbox' } });
	}
});

test('5. daily statistics: one row per operator for yesterday, named and busiest first', async () => {
	const { data } = await run(example(EXAMPLE_IDS.dailyStats), { from: 'Every day at 07:00' });
	// "Yesterday" is the day before the run's in the workflow's zone (n8n's default here): the date it asked for.
	const [year, month, day] = localTime(new Date().toISOString(), env.engine.timezone)
		.slice(0, 10)
		.split('-')
		.map(Number);
	const yesterday = new Date(Date.UTC(year, month - 1, day - 1)).toISOString().slice(0, 10);
	const asked = env.sandbox.control.requestLog().filter(({ path }) => path === '/api/v2/stats');
	expect(asked.map(({ query }) => query.date)).toEqual([yesterday]);
	const rows = await sandboxGet<OperatorStatsRow[]>(
		env.sandbox,
		`stats?date=${yesterday}&mode=operators`,
	);
	const report = nodeOutput(data, 'Report columns');
	expect(report).toHaveLength(rows.length);
	for (const line of report) {
		const operator = operatorsBefore.find((candidate) => candidate.email === line['E-Mail'])!;
		const row = rows.find((candidate) => candidate.operator_id === operator.id)!;
		expect(line).toEqual({
			Operator: operator.full_name,
			'E-Mail': operator.email,
			Chats: row.chats,
			'Online (h)': Math.round(row.online_time / 36) / 100,
			'Chatting (h)': Math.round(row.chating_time / 36) / 100,
			'Average chat (min)': Math.round(row.avg_chating_time / 6) / 10,
			'Busy notices': row.busy_messages,
		});
	}
	const chats = report.map((line) => line.Chats as number);
	expect(chats).toEqual([...chats].sort((a, b) => b - a));
});

/** Example 11's report worked out here from the chats begun in [fromMs, toMs), by the README's rules. */
function expectedWeeklyReport(chats: Chat[], fromMs: number, toMs: number) {
	const createdMs = (chat: Chat) => Date.parse(chat.created_at);
	// First response (docs/outputs.md, "Response times"): the visitor's earliest message, and the earliest operator or
	// file_operator message at or after it.
	const firstResponse = ({ messages = [] }: Chat) => {
		const times = (kinds: string[]) =>
			messages.filter((one) => kinds.includes(one.kind)).map((one) => Date.parse(one.created_at));
		const asked = Math.min(...times(['visitor', 'file_visitor', 'contacts', 'keyboard_response']));
		const answers = times(['operator', 'file_operator']).filter((ms) => ms >= asked);
		return answers.length ? (Math.min(...answers) - asked) / 1000 : null;
	};
	const byOperator = new Map<unknown, Array<number | null>>();
	for (const chat of chats.filter((one) => createdMs(one) >= fromMs && createdMs(one) < toMs))
		byOperator.set(chat.operator_id, [
			...(byOperator.get(chat.operator_id) ?? []),
			firstResponse(chat),
		]);
	const rows = [...byOperator].map(([id, responses]) => {
		const answered = responses.filter((seconds) => seconds !== null);
		const sum = answered.reduce((total, seconds) => total + seconds, 0);
		return {
			Operator: operatorsBefore.find((operator) => operator.id === id)!.full_name,
			Chats: responses.length,
			Answered: answered.length,
			// Both rounded to whole seconds, the same way.
			'Average first response (s)': answered.length ? Math.round(sum / answered.length) : null,
			'Longest first response (s)': answered.length ? Math.round(Math.max(...answered)) : null,
		};
	});
	return { rows, responses: [...byOperator.values()].flat() };
}

/** Example 11's rows: the week's first and last day (in the workflow's zone) on each, fastest average first. */
function expectWeekOnEveryRowFastestFirst(
	report: IDataObject[],
	fromMs: number,
	toMs: number,
	timezone = env.engine.timezone,
) {
	const day = (ms: number) => localTime(new Date(ms).toISOString(), timezone).slice(0, 10);
	for (const row of report)
		expect([row["Week's first day"], row["Week's last day"]]).toEqual([day(fromMs), day(toMs - 1)]);
	const averages = report.map((row) => row['Average first response (s)'] as number | null);
	// n8n's Sort puts a row without an average (no answered chat) before the others.
	const numbers = averages.filter((seconds) => seconds !== null);
	expect(averages).toEqual([...averages.filter((seconds) => seconds === null), ...numbers]);
	expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
}

/** A report row without the week's two days, to compare with expectedWeeklyReport's. */
const withoutWeekDays = (row: IDataObject) =>
	Object.fromEntries(Object.entries(row).filter(([column]) => !column.startsWith("Week's")));
const byOperatorName = (rows: Array<Record<string, unknown>>) =>
	[...rows].sort((a, b) => String(a.Operator).localeCompare(String(b.Operator)));

test('11. weekly report: per operator, the chats begun in the 7 days before the run and their first responses', async () => {
	const { data } = await run(example(EXAMPLE_IDS.weeklyReport), { from: 'Every Monday at 08:00' });
	const at = Date.now();
	const chats = (await sandboxAllChats(env.sandbox)).chats;
	// The week as its one node set it: the 7 days up to the run, which began a little before `at`.
	const [bounds] = nodeOutput(data, 'Week bounds');
	const [fromMs, toMs] = [Date.parse(String(bounds.from)), Date.parse(String(bounds.to))];
	expect(bounds.week).toBe('last 7 days');
	expect(toMs - fromMs).toBe(7 * 86_400_000);
	expect(at - toMs).toBeGreaterThanOrEqual(0);
	expect(at - toMs).toBeLessThan(300_000);
	const { rows, responses } = expectedWeeklyReport(chats, fromMs, toMs);
	// Not a trivial report: several chats and operators, answered chats among them, real times, not 0 s.
	const answered = responses.filter((seconds) => seconds !== null);
	expect(answered.length).toBeGreaterThan(3);
	expect(answered.every((seconds) => seconds > 0)).toBe(true);
	expect(rows.length).toBeGreaterThan(1);
	const report = nodeOutput(data, 'Fastest first');
	expect(byOperatorName(report.map(withoutWeekDays))).toEqual(byOperatorName(rows));
	expectWeekOnEveryRowFastestFirst(report, fromMs, toMs);
	// Summarize gave one item per operator, as n8n's own node does.
	expect(nodeOutput(data, 'Per operator')).toHaveLength(rows.length);
});

test('11. the week is written in one node, and "last calendar week" there reports Monday to Monday in the workflow\'s zone', async () => {
	const report = example(EXAMPLE_IDS.weeklyReport);
	// Which week reads the run's moment once (two reads of $now differ by milliseconds), only Week bounds computes the
	// week from it, and the other nodes read its from and to.
	const named = (pattern: RegExp) =>
		report.nodes
			.filter((node) => pattern.test(JSON.stringify(node.parameters)))
			.map((node) => node.name);
	expect(named(/\$now\.toISO\(\)|\$today/)).toEqual(['Which week']);
	// Week bounds computes the week; Report columns only writes its first and last day.
	expect(named(/startOf\(|minus\(\{ (days|weeks)/)).toEqual(['Week bounds']);
	const readers = report.nodes.filter((node) =>
		/json\.(from|to)\b/.test(JSON.stringify(node.parameters)),
	);
	expect(readers.map((node) => node.name).sort()).toEqual([
		'Chats of the week',
		'Created in the week',
		'Report columns',
	]);

	// What Which week would give for "last calendar week", from the node after it.
	const zone = 'Europe/Berlin';
	const output = await runOnItems(
		EXAMPLE_IDS.weeklyReport,
		'Week bounds',
		[{ week: 'last calendar week', run_at: new Date().toISOString() }],
		zone,
	);
	const [bounds] = output('Week bounds');
	const local = (iso: unknown) =>
		new Intl.DateTimeFormat('en-GB', {
			timeZone: zone,
			weekday: 'short',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		}).format(new Date(String(iso)));
	expect([local(bounds.from), local(bounds.to)]).toEqual(['Mon 00:00:00', 'Mon 00:00:00']);
	const [fromMs, toMs] = [Date.parse(String(bounds.from)), Date.parse(String(bounds.to))];
	// The Monday before the run's own week: 7 days (168 hours, give or take a clock change) before this week's.
	expect(Math.abs(toMs - fromMs - 7 * 86_400_000)).toBeLessThanOrEqual(3_600_000);
	expect(Date.now() - toMs).toBeLessThan(7 * 86_400_000);
	const { rows } = expectedWeeklyReport((await sandboxAllChats(env.sandbox)).chats, fromMs, toMs);
	expect(rows.length).toBeGreaterThan(1);
	expect(byOperatorName(output('Fastest first').map(withoutWeekDays))).toEqual(
		byOperatorName(rows),
	);
	expectWeekOnEveryRowFastestFirst(output('Fastest first'), fromMs, toMs, zone);
});

test('11. a week that is neither allowed value fails the run, naming the two', async () => {
	const workflow = example(EXAMPLE_IDS.weeklyReport);
	const week = 'last wek';
	const items = [
		{
			json: {
				week,
				weeks_known: ['last 7 days', 'last calendar week'],
				run_at: new Date().toISOString(),
			},
		},
	];
	ran.add(workflow.id);
	const result = await env.engine.run(workflow, {
		credentials: env.credentials,
		from: 'Known week?',
		items,
	});
	expect({ status: result.status, message: result.error }).toEqual({
		status: 'error',
		message:
			'Which week: "last wek" is not a week this report knows. Set week to "last 7 days" or "last calendar week".',
	});
	expect(result.data.resultData.runData['Chats of the week']).toBeUndefined();
});

test('3. lunch break: exactly the operators online at 13:00 go to dinner and come back; nobody else is touched', async () => {
	const onlineBefore = operatorsBefore
		.filter((operator) => operator.status === 'online')
		.map((operator) => operator.email);
	expect(onlineBefore.length).toBeGreaterThan(0);
	// Someone already at dinner at 13:00 must not be brought online at 14:00.
	expect(operatorsBefore.some((operator) => operator.status === 'dinner')).toBe(true);

	// "Wait until 14:00" passes the operators on at once: the engine runs no waiting execution later.
	const lunch = lunchCopy(example(EXAMPLE_IDS.lunchBreak), 0);
	const { data } = await run(lunch, { from: 'Every day at 13:00' }, EXAMPLE_IDS.lunchBreak);
	expect(nodeOutput(data, 'Set to dinner')).toEqual(
		onlineBefore.map((email) => ({ result: 'ok', email, status: 'dinner' })),
	);
	expect(nodeOutput(data, 'Back online')).toEqual(
		onlineBefore.map((email) => ({ result: 'ok', email, status: 'online' })),
	);
	// Each change was a real request the sandbox accepted: dinner for each, then online for each.
	expect(rtRequests('agent_status').map((entry) => entry.status)).toEqual(
		onlineBefore.flatMap(() => [200, 200]),
	);
	expect(
		env.sandbox.control.getOperators().map(({ email, status }) => ({ email, status })),
	).toEqual(operatorsBefore.map(({ email, status }) => ({ email, status })));
});

/** The contacts of example 2's pinned campaign. */
const campaign = () =>
	pinnedBody(example(EXAMPLE_IDS.crmBroadcast), 'CRM webhook') as {
		template_id: string;
		contacts: Array<{ phone: string; name: string }>;
	};

/**
 * Example 2 called twice with its pinned campaign, as a CRM that resends its webhook, once for both tests. It answers
 * with the merged items (Answer: all incoming items), their JSON.
 */
let crmPosts: Promise<Array<Awaited<ReturnType<typeof run>>>> | undefined;
const postCampaignTwice = async () =>
	await (crmPosts ??= (async () => [
		await callWebhook(EXAMPLE_IDS.crmBroadcast, 'CRM webhook'),
		await callWebhook(EXAMPLE_IDS.crmBroadcast, 'CRM webhook'),
	])());
const lastNodeAnswer = ({ data, response }: Awaited<ReturnType<typeof run>>) => {
	const merged = nodeOutput(data, 'One result per contact');
	expect(response).toEqual({ statusCode: 200, headers: {}, body: merged });
	return merged;
};

test('2. CRM webhook: one broadcast request for all contacts, answered per contact', async () => {
	const [first] = await postCampaignTwice();
	const sample = campaign();
	expect(sample.contacts.length).toBeGreaterThan(1);
	expect(lastNodeAnswer(first)).toEqual(
		sample.contacts.map(({ phone }) =>
			expect.objectContaining({
				result: 'accepted',
				phone_number: phone,
				recipients_in_request: sample.contacts.length,
				requests: 1,
			}),
		),
	);
	expect(nodeOutput(first.data, 'Skip contacts already sent')).toEqual(sample.contacts);
	expect(rtRequests('send_broadcast')).toHaveLength(1);
	const [broadcast] = env.sandbox.control.broadcasts();
	expect(broadcast).toMatchObject({ operator_id: 1, kind: 'msgapp', channel_id: 'wa-main' });
	expect(broadcast.data).toEqual({
		template_id: sample.template_id,
		entries: sample.contacts.map(({ phone, name }) => ({
			phone_number: phone,
			language_code: 'en',
			body: { type: 'body', parameters: [{ type: 'text', text: name }] },
		})),
	});
});

test('2. the same campaign posted again is sent to nobody: each contact is answered "skipped"', async () => {
	const [, again] = await postCampaignTwice();
	expect(nodeOutput(again.data, 'Skip contacts already sent')).toEqual([]);
	expect(lastNodeAnswer(again)).toEqual(
		campaign().contacts.map(({ phone }) => ({
			result: 'skipped',
			phone_number: phone,
			reason: 'An earlier execution sent this template to this number',
		})),
	);
	// Still the one request of the first post: nobody was messaged twice.
	expect(rtRequests('send_broadcast')).toHaveLength(1);
	expect(env.sandbox.control.broadcasts()).toHaveLength(1);
});

test('4. website login pairs the visitor and answers with the snippet; logout removes the pairing', async () => {
	const sample = pinnedBody(example(EXAMPLE_IDS.visitorPairing), 'Website login');
	const login = await callWebhook(EXAMPLE_IDS.visitorPairing, 'Website login');
	expect(login.response).toEqual({
		statusCode: 200,
		headers: {},
		body: { auth_token: expect.any(String), snippet: expect.any(String) },
	});
	const { auth_token: token, snippet } = login.response!.body as Record<string, string>;
	expect(token).toMatch(/^[0-9a-f-]{36}$/);
	expect(snippet).toBe(`window.svc_auth_token = "${token}";`);
	expect(env.sandbox.control.pairings()).toEqual({
		[token]: {
			id: sample.customer_id,
			name: sample.name,
			email: sample.email,
			phone: sample.phone,
		},
	});

	const logout = await callWebhook(EXAMPLE_IDS.visitorPairing, 'Website logout', {
		auth_token: token,
	});
	expect(logout.response).toEqual({
		statusCode: 200,
		headers: {},
		body: { result: 'ok', removed: true },
	});
	expect(env.sandbox.control.pairings()).toEqual({});
	expect(rtRequests('provide_visitor_fields').map((entry) => entry.status)).toEqual([200, 200]);
});

test("13. a CRM contact's 3 latest chats: newest first as the API orders them, as transcripts, no Code node", async () => {
	const contactChats = example(EXAMPLE_IDS.contactChats);
	expect(contactChats.nodes.map((node) => node.type)).not.toContain('n8n-nodes-base.code');
	const { email } = pinnedBody(contactChats, 'CRM contact');
	const theirs = env.sandbox.control.regularVisitorChats().map(({ chat }) => chat);
	expect(theirs.length).toBeGreaterThanOrEqual(3);
	expect(theirs.every((chat) => chat.visitor?.fields?.email?.toLowerCase() === email)).toBe(true);
	const { response } = await callWebhook(EXAMPLE_IDS.contactChats, 'CRM contact');
	expect(response).toMatchObject({ statusCode: 200 });
	const answer = response!.body as Array<{ id: unknown; transcript: string }>;
	expect(answer.map((chat) => chat.id)).toEqual(
		theirs
			.slice(-3)
			.reverse()
			.map((chat) => String(chat.id)), // Transcript gives the id as text (issue 65)
	);
	for (const chat of answer)
		expect(chat.transcript).toMatch(new RegExp(`^Chat ${String(chat.id)},`));
});

// Issue 64: a call whose body gives no e-mail is refused with 400 and the message; nobody's chats are read.
test('13. a call without an e-mail answers 400 with the message, reads no chat of anyone and sends no GET /chats', async () => {
	/** Example 13 called with `body` (else its pinned one), and its GET /chats: nothing else reads them meanwhile. */
	const call = async (body?: object) => {
		const from = env.sandbox.control.requestLog().length;
		const { response, data } = await callWebhook(EXAMPLE_IDS.contactChats, 'CRM contact', body);
		const log = env.sandbox.control.requestLog().slice(from);
		return { response, data, chatReads: log.filter(({ path }) => path === '/api/v2/chats').length };
	};
	// The count sees the search of a call with an e-mail, so none below is no search.
	const found = await call();
	expect(found.response).toMatchObject({ statusCode: 200 });
	expect(found.chatReads).toBeGreaterThanOrEqual(1);
	const bodies = [{}, { email: '' }, { email: '   ' }, { phone: '+44 20 7946 0958' }];
	const error =
		"'Visitor' is empty: the expression `{{ $json.body.email }}` gave no value for this item";
	for (const body of bodies) {
		const { response, data, chatReads } = await call(body);
		expect({ body, response, chatReads }).toEqual({
			body,
			response: { statusCode: 400, headers: {}, body: { error } },
			chatReads: 0,
		});
		// Latest 3 chats sent the item to its error output, Refuse answered, Answer never ran.
		expect(nodeOutput(data, 'Latest 3 chats')).toEqual([]);
		expect(nodeOutput(data, 'Latest 3 chats', 1)).toEqual([expect.objectContaining({ error })]);
		expect(nodeOutput(data, 'Refuse')).toHaveLength(1);
		expect(data.resultData.runData.Answer).toBeUndefined();
	}
});

// Issue 64: a webhook whose Svc node meets the account's pause answers 503 with the pause's end and Retry-After.
const PAUSED_WEBHOOKS = [
	// Each call a new contact: Skip contacts already sent would answer "skipped" without a request.
	{
		id: EXAMPLE_IDS.crmBroadcast,
		webhook: 'CRM webhook',
		failed: 500,
		body: (call: number) => ({
			template_id: 'welcome_v2',
			contacts: [{ phone: `+1555000009${call}`, name: 'Pat' }],
		}),
	},
	{ id: EXAMPLE_IDS.visitorPairing, webhook: 'Website login', failed: 500 },
	{ id: EXAMPLE_IDS.visitorPairing, webhook: 'Website logout', failed: 500 },
	{ id: EXAMPLE_IDS.contactChats, webhook: 'CRM contact', failed: 400 },
];
test.each(PAUSED_WEBHOOKS.map((one) => [`${one.id} / ${one.webhook}`, one]))(
	"%s: a refused login answers with its message, the pause then 503 with its end and Retry-After, no request; the sandbox's account still works",
	async (_, { id, webhook, failed, body }) => {
		// An account the sandbox does not know: its refusal pauses it alone (the guard's state is per host and e-mail).
		const refused = {
			svcApi: { ...env.credentials.svcApi, email: `paused.${webhook.replace(/\W/g, '')}@svc.test` },
		};
		const call = async (nth: number, credentials?: Credentials) => {
			const from = env.sandbox.control.requestLog().length;
			const { response } = await callWebhook(id, webhook, body?.(nth), credentials);
			return { response, requests: env.sandbox.control.requestLog().length - from };
		};
		const first = await call(1, refused);
		expect(first).toEqual({
			response: {
				statusCode: failed,
				headers: {},
				body: { error: expect.stringMatching(/^Wrong email or password/) },
			},
			requests: 1,
		});
		const pausedAt = Date.now();
		const { response, requests } = await call(2, refused);
		const until = (response?.body as { paused_until?: string } | undefined)?.paused_until ?? '';
		expect({ response, requests }).toEqual({
			response: {
				statusCode: 503,
				headers: { 'retry-after': new Date(until).toUTCString() },
				body: { error: `Svc logins of this account pause until ${until}`, paused_until: until },
			},
			requests: 0,
		});
		// The first pause, 1 minute from the refusal.
		expect(Date.parse(until) - pausedAt).toBeGreaterThan(50_000);
		expect(Date.parse(until) - pausedAt).toBeLessThanOrEqual(60_000);
		const normal = await call(3);
		expect(normal.response).toMatchObject({ statusCode: 200 });
		expect(normal.requests).toBeGreaterThan(0);
	},
);

test('1. the chat trigger, published, exports at its first poll every message of every finished chat, once', async () => {
	const trigger = publish(example(EXAMPLE_IDS.exportFinishedChats));
	const { data } = await trigger.emits();
	const chatsAtExport = (await sandboxAllChats(env.sandbox)).chats;
	const finished = chatsAtExport.filter((chat) => finalState(chat) === 'closed');
	expect(finished.length).toBeGreaterThan(0);
	expect(finished.length).toBeLessThan(chatsAtExport.length);
	const expectedRows = finished.flatMap((chat) =>
		(chat.messages ?? []).map((message) => `${chat.id}/${message.id}`),
	);

	const rows = nodeOutput(data, 'Finished chats');
	expect(rows.map((row) => `${row.chat_id}/${row.message_id}`).sort()).toEqual(expectedRows.sort());

	const table = nodeOutput(data, 'Spreadsheet columns');
	expect(table).toHaveLength(rows.length);
	expect(Object.keys(table[0])).toEqual([
		'Chat ID',
		'Chat started',
		'Message time',
		'Kind',
		'Text',
		'Operator ID',
		'File',
		'Visitor ID',
	]);
	const [csv] = nodeItems(data, 'CSV file');
	expect(csv.binary).toEqual({
		data: expect.objectContaining({
			fileName: expect.stringMatching(/^finished-chats-.+\.csv$/),
			mimeType: 'text/csv',
		}),
	});
	// Nothing changed since: the next polls export nothing again.
	await trigger.quiet(2);
});

test('7. nobody online: one execution when every operator went offline, one when they came back; its IF takes both branches', async () => {
	// Example 7's copy whose IF sees a pinned clock: a Set node between the trigger and the IF gives detected_at.
	const trigger = publish(pollingCopies(examples).alert, EXAMPLE_IDS.nobodyOnline);
	const shown = ['Operator availability', 'Message for the team', 'Outside business hours'];
	const onlineBefore = operatorsBefore.filter((operator) => operator.status === 'online');
	expect(onlineBefore.length).toBeGreaterThan(0);
	// The first poll records the statuses.
	await trigger.quiet();
	env.sandbox.control.cycleOperators({ statuses: ['offline'] });
	expect(env.sandbox.control.getOperators().map(({ status }) => status)).toEqual(
		operatorsBefore.map(() => 'offline'),
	);
	const offline = outputsOf((await trigger.emits()).data, shown);
	await trigger.quiet();
	// Put back as seeded, for the tests after it.
	for (const { id, status } of operatorsBefore) env.sandbox.control.setOperatorStatus(id, status);
	expect(env.sandbox.control.getOperators()).toEqual(operatorsBefore);
	const back = outputsOf((await trigger.emits()).data, shown);
	const backAt = Date.now();
	// Two more polls after the last change: an availability reported twice would be a third execution.
	await trigger.quiet(2);

	const [down] = offline['Operator availability'];
	expect(offline['Operator availability']).toEqual([
		{ available: false, count: 0, operators: [], changed_after: ISO, detected_at: ISO },
	]);
	const [up] = back['Operator availability'];
	expect(back['Operator availability']).toEqual([
		{
			available: true,
			count: onlineBefore.length,
			operators: onlineBefore.map(({ id, email, full_name, roles, status }) => ({
				id,
				email,
				full_name,
				roles,
				status,
			})),
			changed_after: ISO,
			detected_at: ISO,
		},
	]);
	const downAt = new Date(down.detected_at as string);
	const upAt = new Date(up.detected_at as string);
	expect(downAt.getTime()).toBeLessThan(upAt.getTime());
	// Each change happened after the poll before the one that saw it: a later poll for the later change.
	const downAfter = Date.parse(down.changed_after as string);
	const upAfter = Date.parse(up.changed_after as string);
	expect(downAfter).toBeLessThan(downAt.getTime());
	expect(upAfter).toBeGreaterThan(downAfter);
	expect(upAfter).toBeLessThan(upAt.getTime());
	expect(upAt.getTime()).toBeLessThanOrEqual(backAt);

	// The IF sees the pinned clock, in Europe/Berlin: nobody online on a Sunday at noon, back on a Monday at noon.
	expect(ALERT_CLOCK).toMatchObject({ zone: 'Europe/Berlin' });
	expect(new Date(ALERT_CLOCK.offline).toUTCString()).toBe('Sun, 29 Nov 2026 11:00:00 GMT');
	expect(new Date(ALERT_CLOCK.back).toUTCString()).toBe('Mon, 30 Nov 2026 11:00:00 GMT');
	expect(offline).toEqual({
		'Operator availability': [down],
		'Outside business hours': [{ ...down, detected_at: ALERT_CLOCK.offline }],
	});
	const names = onlineBefore.map(({ full_name }) => full_name).join(', ');
	expect(back).toEqual({
		'Operator availability': [up],
		'Message for the team': [{ text: `Back online (${onlineBefore.length}): ${names}` }],
	});
});

test("7. business hours are Monday to Friday, 09:00 to 18:00, in the workflow's time zone, at any hour of the run", async () => {
	// The example's own IF and message on fixed moments in Pacific/Auckland (UTC+13 in November), so that the zone
	// decides: the first two are business hours only there, the third only in UTC.
	const team = [{ full_name: 'Anna Petrova' }, { full_name: 'Boris Ivanov' }];
	const nobody = { available: false, count: 0, operators: [] };
	const back = { available: true, count: 2, operators: team };
	const inHours = [
		{ ...nobody, detected_at: '2026-11-29T20:30:00.000Z' }, // Monday 09:30 there, Sunday in UTC
		{ ...back, detected_at: '2026-11-25T04:59:00.000Z' }, // Wednesday 17:59 there, 04:59 in UTC
	];
	// Issue 59: a late report (more than 2 minutes after the check before) gives both ends of its window.
	const late = {
		...nobody,
		changed_after: '2026-11-29T20:09:00.000Z', // Monday 09:09 there
		detected_at: '2026-11-29T20:30:00.000Z',
	};
	const onTime = { ...late, changed_after: '2026-11-29T20:29:00.000Z' };
	inHours.push(late, onTime);
	const outside = [
		{ ...nobody, detected_at: '2026-11-25T09:00:00.000Z' }, // Wednesday 22:00 there, 09:00 in UTC
		{ ...back, detected_at: '2026-11-25T05:00:00.000Z' }, // Wednesday 18:00 there: the end is left out
		{ ...nobody, detected_at: '2026-11-24T19:59:00.000Z' }, // Wednesday 08:59 there
		{ ...back, detected_at: '2026-11-27T21:00:00.000Z' }, // Saturday 10:00 there
	];
	const output = await runOnItems(
		EXAMPLE_IDS.nobodyOnline,
		'During business hours?',
		[...inHours, ...outside],
		'Pacific/Auckland',
	);
	expect(output('Message for the team')).toEqual([
		{ text: 'Nobody is online since 09:30.' },
		{ text: 'Back online (2): Anna Petrova, Boris Ivanov' },
		{ text: 'Nobody is online since some time between Mon 09:09 and 09:30.' },
		{ text: 'Nobody is online since 09:30.' },
	]);
	expect(output('Outside business hours')).toEqual(outside);
});

/**
 * What the Slack or e-mail step that an example's green note describes would receive: the output of the node the note
 * says to put it after, or, for a note that says to replace a node, that node's input. Each field the note maps (`$json.x`)
 * must be a non-empty string there.
 */
function expectNoteStepGetsText(exampleId: string, outputs: ReturnType<typeof outputsOf>) {
	const { nodes, connections } = example(exampleId);
	const note = nodes.find(
		(node) => node.type === 'n8n-nodes-base.stickyNote' && node.parameters.color === 4,
	)!;
	const content = note.parameters.content as string;
	const [, how, named] = /\b(after|Replace) \*\*(.+?)\*\*/.exec(content)!;
	const feeding = Object.entries(connections).find(([, { main }]) =>
		main.flat().some((link) => link?.node === named),
	)?.[0];
	const items = outputs[how === 'after' ? named : feeding!];
	const fields = [...new Set([...content.matchAll(/\$json\.(\w+)/g)].map(([, field]) => field))];
	expect(items.length).toBeGreaterThan(0);
	for (const item of items)
		for (const field of fields)
			expect({ field, value: item[field] }).toEqual({ field, value: expect.stringMatching(/\S/) });
	return fields;
}

test('8. bad rating: only the rating of 1 is emitted, once, with the transcript of its chat', async () => {
	const trigger = publish(example(EXAMPLE_IDS.badRating));
	// The first poll finds its place: the chat's older rating of 1 never comes.
	await trigger.quiet();
	env.sandbox.control.rateChat(RATED_CHATS.bad, { rate: 1 });
	env.sandbox.control.rateChat(RATED_CHATS.good, { rate: 5 });
	const outputs = outputsOf((await trigger.emits()).data, [
		'Bad ratings',
		'Message for the team lead',
	]);
	// Three more polls: the rating of 5, or this one again, would show.
	await trigger.quiet(3);
	const chat = env.sandbox.control.getChat(RATED_CHATS.bad)!;
	const rates = chat.rates ?? [];
	expect(rates.filter(({ rate }) => rate === 1)).toHaveLength(2);
	const rated = rates.at(-1)!;
	const operators = new Map(operatorsBefore.map(({ id, full_name }) => [id, full_name]));
	const [item] = outputs['Bad ratings'];
	expect(outputs['Bad ratings']).toEqual([
		{
			chat_id: RATED_CHATS.bad,
			rating: 1,
			operator_id: chat.operator_id,
			operator_name: operators.get(chat.operator_id as number),
			rated_at: rated.created_at,
			detected_at: ISO,
			chat: expect.objectContaining({ id: String(RATED_CHATS.bad), average_rate: 1 }),
		},
	]);
	// The transcript: a line per message, the visitor and the operators by name, times in the workflow's zone (n8n's
	// default here, not UTC: each time is converted).
	const zone = env.engine.timezone;
	expect(zone).not.toMatch(/UTC/);
	const transcript = (item.chat as { transcript: string }).transcript;
	const lines = transcript.split('\n');
	expect(lines[0]).toBe(`Chat ${RATED_CHATS.bad}, times in ${zone}`);
	const messages = chat.messages ?? [];
	expect(lines).toHaveLength(messages.length + 1);
	const visitorName = chat.visitor?.fields?.name as string | undefined;
	messages.forEach((message, index) => {
		const who =
			message.kind === 'operator'
				? `${operators.get(message.operator_id as number)} (operator)`
				: message.kind === 'visitor'
					? (visitorName && `${visitorName} (visitor)`) || 'Visitor'
					: undefined;
		const time = localTime(message.created_at, zone);
		const prefix = who ? `[${time}] ${who}: ` : `[${time}] `;
		expect(lines[index + 1].slice(0, prefix.length)).toBe(prefix);
	});
	// Who and when: the operator by name and id, the time as the transcript shows it, in the same zone.
	const by = `${operators.get(chat.operator_id as number)} (operator ${chat.operator_id})`;
	const at = localTime(rated.created_at, zone);
	// chat_id stays the number the API gave.
	expect(outputs['Message for the team lead']).toEqual([
		{
			text: `Rating 1 of 5 by ${by} at ${at} (${zone}) in chat ${RATED_CHATS.bad}.`,
			chat_id: RATED_CHATS.bad,
			rating: 1,
			operator_id: chat.operator_id,
			transcript,
		},
	]);
	expect(expectNoteStepGetsText(EXAMPLE_IDS.badRating, outputs)).toEqual(['text', 'transcript']);
});

test("8. the alert names the operator by name, else by id, at the rating's time and zone; the note's sample is what it writes", async () => {
	// The note's sample is the alert for the demo's bad rating (chat RATED_CHATS.bad rated 1) in Europe/Berlin: that
	// chat's operator, by the sandbox's seed (this file's sandbox is the demo's), and the text the Set node writes.
	const note = example(EXAMPLE_IDS.badRating).nodes.find(
		(node) => node.name === 'About this workflow',
	)!;
	const sample =
		/\*(Rating (\d) of 5 by (.+?) \(operator (\d+)\) at (\S+ \S+) \((\S+)\) in chat (\d+)\.)\*/.exec(
			String(note.parameters.content),
		);
	expect(sample).not.toBeNull();
	const [, text, rating, name, operatorId, , zone, chatId] = sample!;
	const chat = env.sandbox.control.getChat(Number(chatId))!;
	expect(Number(chatId)).toBe(RATED_CHATS.bad);
	expect(chat.operator_id).toBe(Number(operatorId));
	expect(operatorsBefore.find((operator) => operator.id === chat.operator_id)?.full_name).toBe(
		name,
	);
	expect(zone).toBe('Europe/Berlin');
	// The example's own Set node on fixed ratings in Europe/Berlin (UTC+1 in November): the sample's, and one without a
	// name and with a GUID for the chat, as a server may give it.
	const ratedAt = '2026-11-19T13:02:11.000Z';
	const guid = '5f0c7a1e-9b2d-4c3e-8f4a-1d2e3f4a5b6c';
	const ratings = [
		{
			chat_id: RATED_CHATS.bad,
			rating: Number(rating),
			operator_id: chat.operator_id,
			operator_name: name,
		},
		{ chat_id: guid, rating: 1, operator_id: 7, operator_name: null },
	].map((one) => ({ ...one, rated_at: ratedAt, chat: { transcript: `Chat ${one.chat_id}` } }));
	const output = await runOnItems(
		EXAMPLE_IDS.badRating,
		'Message for the team lead',
		ratings,
		zone,
	);
	expect(output('Message for the team lead')).toEqual([
		{
			text,
			transcript: `Chat ${RATED_CHATS.bad}`,
			chat_id: RATED_CHATS.bad,
			rating: 1,
			operator_id: chat.operator_id,
		},
		{
			text: `Rating 1 of 5 by operator 7 at 2026-11-19 14:02:11 (Europe/Berlin) in chat ${guid}.`,
			transcript: `Chat ${guid}`,
			chat_id: guid,
			rating: 1,
			operator_id: 7,
		},
	]);
});

test('9. missed chat: each unanswered chat once, with its contact; the draft goes to the one with an e-mail address', async () => {
	const trigger = publish(example(EXAMPLE_IDS.missedChat));
	await trigger.quiet();
	env.sandbox.control.addMissedChat('fields');
	env.sandbox.control.addMissedChat('none');
	const outputs = outputsOf((await trigger.emits()).data, [
		'Missed chats',
		'Has an e-mail address?',
		'Follow-up e-mail',
	]);
	await trigger.quiet(3);
	const items = outputs['Missed chats'];
	expect(items).toHaveLength(2);
	const chats = items.map((item) => env.sandbox.control.getChat(item.chat_id as number)!);
	for (const [index, chat] of chats.entries()) {
		// Unanswered and finished, as the sandbox made it.
		expect(finalState(chat)).toBe('closed');
		expect(chat.messages?.some(({ kind }) => kind === 'operator' || kind === 'file_operator')).toBe(
			false,
		);
		const fields = chat.visitor?.fields ?? {};
		expect(items[index]).toEqual({
			chat_id: chat.id,
			closed_at: chat.state_history?.at(-1)?.at,
			visitor_name: fields.name ?? null,
			visitor_email: fields.email ?? null,
			visitor_phone: fields.phone ?? null,
			detected_at: ISO,
			chat: expect.objectContaining({ id: String(chat.id), final_state: 'closed' }),
		});
	}
	const withEmail = items.filter((item) => item.visitor_email);
	expect(withEmail).toHaveLength(1);
	expect(withEmail[0]).toMatchObject({
		visitor_name: expect.any(String),
		visitor_phone: expect.any(String),
	});
	expect(outputs['Has an e-mail address?']).toEqual(withEmail);
	const { visitor_name: name, visitor_email: to, chat_id } = withEmail[0];
	expect(outputs['Follow-up e-mail']).toEqual([
		{
			to,
			subject: 'Sorry we missed your chat',
			body: expect.stringMatching(
				new RegExp(`^Hello ${name as string},\n\nyou wrote to us in our chat`),
			),
			chat_id,
		},
	]);
	expect(chat_id).toEqual(expect.any(Number));
	expect(expectNoteStepGetsText(EXAMPLE_IDS.missedChat, outputs)).toEqual([
		'to',
		'subject',
		'body',
	]);
});

/** Example 10's message for one waiting visitor, as its Set node words it (issue 59: minutes and seconds). */
function expectedWaitMessage(item: Record<string, unknown>, chat: Chat) {
	const waited = item.waited_seconds as number;
	const latest = chat.state_history!.at(-1)!;
	const department =
		latest.department_id === null ? 'no department' : `department ${latest.department_id}`;
	const minutes = waited >= 60 ? `${Math.floor(waited / 60)} min ` : '';
	const name = (chat.visitor?.fields?.name as string | undefined) || 'A visitor';
	return {
		text: `${name} has waited ${minutes}${waited % 60} s in chat ${chat.id} (${department}, operator ${chat.operator_id}).`,
		// Passed on as the API gave them (a number or a GUID string), not forced to text.
		chat_id: chat.id,
		waited_seconds: waited,
	};
}

// Last: it sets the sandbox's clock ahead.
test("10. visitor waiting: the visitor who waits past the threshold (3 s in the demo's copy, 3 minutes in the example) comes once; the one answered at once never", async () => {
	const copy = publish(pollingCopies(examples).waiting, EXAMPLE_IDS.visitorWaiting);
	const shipped = publish(example(EXAMPLE_IDS.visitorWaiting));
	const shown = ['Waiting visitors', 'Message for the team'];
	await copy.quiet();
	await shipped.quiet();
	const { id } = env.sandbox.control.visitorWaits();
	env.sandbox.control.answerChat(env.sandbox.control.visitorWaits().id);
	// Not yet 3 minutes.
	await shipped.quiet();
	// By the server's clock, which the trigger goes by: 4 s on, past the copy's 3 s, not the example's 3 minutes.
	serverAheadMs += 4_000;
	const early = outputsOf((await copy.emits()).data, shown);
	await shipped.quiet();
	// 3 min 44 s more: the example's turn; the copy has told of this wait already.
	serverAheadMs += 224_000;
	const late = outputsOf((await shipped.emits()).data, shown);
	await copy.quiet(3);
	await shipped.quiet(3);

	const chat = env.sandbox.control.getChat(id)!;
	// Still waiting: one visitor message, in the queue; operator_id is the chat's, as in the chat it carries (issue 59).
	expect(chat.messages?.map(({ kind }) => kind)).toEqual(['visitor']);
	const latest = chat.state_history!.at(-1)!;
	const fields = chat.visitor?.fields ?? {};
	// Each past its threshold, and each in a branch of the message: seconds only, then minutes and seconds.
	for (const [outputs, [least, most]] of [
		[early, [3, 60]],
		[late, [180, 3_600]],
	] as const) {
		const items = outputs['Waiting visitors'];
		expect(items).toEqual([
			{
				chat_id: chat.id,
				wait_began_at: chat.messages![0].created_at,
				waited_seconds: expect.any(Number),
				department_id: latest.department_id,
				operator_id: chat.operator_id,
				visitor_name: fields.name ?? null,
				visitor_email: fields.email ?? null,
				visitor_phone: fields.phone ?? null,
				detected_at: ISO,
				chat: expect.objectContaining({
					id: String(chat.id),
					final_state: 'queue',
					operator_id: chat.operator_id,
				}),
			},
		]);
		const waited = items[0].waited_seconds as number;
		expect(waited).toBeGreaterThanOrEqual(least);
		expect(waited).toBeLessThan(most);
		expect(outputs['Message for the team']).toEqual([expectedWaitMessage(items[0], chat)]);
	}
});

// Example 14's Data table node needs n8n's data-table module (its getDataTableProxy helper, over n8n's database), which
// only a server has: test/e2e/trigger-events.test.ts runs it.
test('every example ran here but the AI agent (test/e2e/agent.test.ts), the MCP server (test/e2e/mcp.scenario.ts) and the Data table (test/e2e/trigger-events.test.ts)', () => {
	const { aiAgent, mcpServer, chatsTable } = EXAMPLE_IDS;
	const elsewhere: string[] = [aiAgent, mcpServer, chatsTable];
	const rest = Object.values(EXAMPLE_IDS).filter((id) => !elsewhere.includes(id));
	expect([...ran].sort()).toEqual(rest.sort());
});
