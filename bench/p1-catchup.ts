// P1: the trigger catches up on 20,000 changed chats (one poll, through n8n-core's request stack) against the physical
// limit, a bare fetch loop paging the same endpoint with the same cursor. Also timed: n8n-core's stack alone, paging
// the same way, to tell the trigger's own cost from the request machinery n8n makes every node use. All three do the
// same work: minimal list entries are read in full with GET /chat, and they end with the same chats.
import { createHash } from 'node:crypto';

import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { FULL_CHAT_CONCURRENCY } from '../nodes/SvcChat/transport/chats';
import type { Chat, ChatsReply } from '../nodes/SvcChat/types';
import { n8nHttpRequestWithAuthentication } from '../test/harness/n8nRequest';
import { catchUpPollContext, credentialsFor } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess, type SandboxProcess } from './sandboxProcess';
import { alternating, elapsedMs, figures, round, type Figures } from './stats';

export interface P1Options {
	runs: number;
	chats: number;
	log: (line: string) => void;
	/** Percent of list entries the sandbox sends as {id, created_at} (spec 2.4); the trigger reads each in full. */
	minimalPercent?: number;
}

export interface P1Result {
	chats: number;
	/** Percent of /chats entries sent minimal; every contender reads each in full with GET /chat. */
	minimalPercent: number;
	/** Every contender sent the same requests and ended with the same chats (checked on every run, else it throws). */
	sameWork: true;
	pages: number;
	/** Requests per catch-up: the pages, and one GET /chat per minimal entry. */
	requests: number;
	/** Mean size of a /chats reply. */
	pageBytes: number;
	rawFetch: Figures;
	n8nStack: Figures;
	trigger: Figures;
	/** Median trigger / median bare fetch. */
	ratio: number;
	/** Median n8n stack alone / median bare fetch: what any node pays for n8n's request machinery. */
	stackRatio: number;
	/** Median trigger / median n8n stack alone: what the trigger's own code adds. */
	triggerOverStack: number;
	/** CPU time of the client process per catch-up (the sandbox runs in its own process). */
	clientCpuMs: Record<Contender, Figures>;
	/** Median client CPU per request, in µs. */
	clientCpuPerRequestUs: Record<Contender, number>;
	target: string;
	met: boolean;
}

const TARGET = 1.15;
const CONTENDERS = ['rawFetch', 'n8nStack', 'trigger'] as const;
type Contender = (typeof CONTENDERS)[number];

interface CatchUp {
	chats: Chat[];
	pages: number;
	bytes: number;
	requests: number;
}

/**
 * Pages through /chats from cursor 0 with `get` (a path and query in, the reply's text out), reading every minimal
 * entry in full with GET /chat as the trigger does: page by page, in list order, FULL_CHAT_CONCURRENCY at a time.
 */
async function catchUp(get: (path: string, qs: IDataObject) => Promise<string>): Promise<CatchUp> {
	const chats: Chat[] = [];
	let since: string | number = 0;
	let bytes = 0;
	let requests = 0;
	for (let pages = 1; ; pages++) {
		const text = await get('chats', { since });
		bytes += Buffer.byteLength(text);
		requests++;
		const page = JSON.parse(text) as ChatsReply;
		const minimal = page.chats.flatMap((chat, index) =>
			Object.keys(chat).every((key) => key === 'id' || key === 'created_at') ? [index] : [],
		);
		let next = 0;
		const readInFull = async () => {
			while (next < minimal.length) {
				const index = minimal[next++];
				page.chats[index] = (
					JSON.parse(await get('chat', { id: page.chats[index].id })) as { chat: Chat }
				).chat;
				requests++;
			}
		};
		await Promise.all(
			Array.from({ length: Math.min(FULL_CHAT_CONCURRENCY, minimal.length) }, readInFull),
		);
		for (const chat of page.chats) chats.push(chat);
		since = page.last_ts;
		if (!page.more_chats_available) return { chats, pages, bytes, requests };
	}
}

/** The baseline: Node's fetch (keep-alive), JSON, the cursor passed back; the chats are kept, as any client would. */
function rawFetchCatchUp(sandbox: SandboxProcess): Promise<CatchUp> {
	return catchUp(async (path, qs) => {
		const query = new URLSearchParams(qs as Record<string, string>);
		const reply = await fetch(`${sandbox.url}/api/v2/${path}?${query}`, {
			headers: { authorization: sandbox.authorization },
		});
		return await reply.text();
	});
}

/**
 * n8n-core's request helper with the credential's Basic auth and the request options the transport sends, doing the
 * same work, with no node code around it.
 */
function n8nStackCatchUp(sandbox: SandboxProcess, node: INode): Promise<CatchUp> {
	const credentials = credentialsFor(sandbox);
	return catchUp(async (path, qs) => {
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: `${sandbox.url}/api/v2/${path}`,
			qs,
			auth: { username: credentials.email, password: credentials.password },
			json: true,
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
		};
		return ((await n8nHttpRequestWithAuthentication(node, request)) as { body: string }).body;
	});
}

/** A digest of the chats in order, so contenders can be checked to hold the same ones. */
function digestOf(chats: IDataObject[]): string {
	const hash = createHash('sha256');
	for (const chat of chats) hash.update(JSON.stringify(chat));
	return `${chats.length}:${hash.digest('hex')}`;
}

export async function benchCatchUp({
	runs,
	chats,
	log,
	minimalPercent = 0,
}: P1Options): Promise<P1Result> {
	const { SvcChatTrigger } = await loadNodes();
	const trigger = new SvcChatTrigger();
	const sandbox = await startSandboxProcess({ chats, seed: 1 });
	try {
		if (minimalPercent > 0)
			await sandbox.control('POST', 'settings', { minimalChatsInLists: minimalPercent });
		const credentials = credentialsFor(sandbox);
		const { last_ts: latest } = await sandbox.control<{ last_ts: number }>('GET', 'cursor');
		const newContext = (staticData: IDataObject) =>
			catchUpPollContext(trigger.description, credentials, chats, staticData);

		// Each contender returns the chats it holds; they are checked after the clock stops.
		const runners: Record<Contender, () => Promise<IDataObject[]>> = {
			rawFetch: async () => (await rawFetchCatchUp(sandbox)).chats,
			n8nStack: async () => (await n8nStackCatchUp(sandbox, newContext({}).getNode())).chats,
			trigger: async () => {
				const staticData: IDataObject = {};
				const result = await trigger.poll.call(newContext(staticData));
				// Caught up to the end: its stored cursor is the server's latest.
				if (staticData.cursor !== String(latest))
					throw new Error(
						`The trigger stopped at cursor ${String(staticData.cursor)}, not ${latest}`,
					);
				return (result?.[0] ?? []).map((item) => item.json);
			},
		};
		// One unmeasured round first: JIT compilation and the sandbox's first replies are not what is compared. It also
		// fixes what every run must match: the chats the bare fetch loop holds, and the requests each contender sent.
		const reference = await rawFetchCatchUp(sandbox);
		if (reference.chats.length !== chats)
			throw new Error(`The fetch loop read ${reference.chats.length} chats, not ${chats}`);
		const expected = digestOf(reference.chats);
		const sameChats = (name: Contender, held: IDataObject[]) => {
			if (digestOf(held) !== expected)
				throw new Error(
					`${name} ended with other chats than the bare fetch loop (${held.length} of ${chats})`,
				);
		};
		for (const name of CONTENDERS) {
			const logged = (await sandbox.requestLog()).length;
			sameChats(name, await runners[name]());
			const sent = (await sandbox.requestLog()).length - logged;
			if (sent !== reference.requests)
				throw new Error(
					`${name} sent ${sent} requests, not the ${reference.requests} of the fetch loop`,
				);
		}

		const times: Record<Contender, number[]> = { rawFetch: [], n8nStack: [], trigger: [] };
		// CPU time of this process (the sandbox runs in its own): the client's work alone, much less noisy than wall time.
		const cpuTimes: Record<Contender, number[]> = { rawFetch: [], n8nStack: [], trigger: [] };
		for (let run = 0; run < runs; run++) {
			// Rotate the order, so that none always runs first (or last) in a round.
			const shift = run % CONTENDERS.length;
			for (const name of [...CONTENDERS.slice(shift), ...CONTENDERS.slice(0, shift)]) {
				const startedAt = performance.now();
				const cpuAtStart = process.cpuUsage();
				const held = await runners[name]();
				times[name].push(Math.round(elapsedMs(startedAt)));
				const cpu = process.cpuUsage(cpuAtStart);
				cpuTimes[name].push(Math.round((cpu.user + cpu.system) / 1000));
				sameChats(name, held);
			}
			log(
				`P1 (${minimalPercent} % minimal) run ${run + 1}/${runs}: fetch ${times.rawFetch[run]} ms, n8n stack ${times.n8nStack[run]} ms, trigger ${times.trigger[run]} ms`,
			);
		}
		const clientCpuMs = {
			rawFetch: figures(cpuTimes.rawFetch, 'ms'),
			n8nStack: figures(cpuTimes.n8nStack, 'ms'),
			trigger: figures(cpuTimes.trigger, 'ms'),
		};
		const perRequestUs = (name: Contender) =>
			Math.round((1000 * clientCpuMs[name].median) / reference.requests);
		const rawFetch = figures(times.rawFetch, 'ms');
		const n8nStack = figures(times.n8nStack, 'ms');
		const triggerTimes = figures(times.trigger, 'ms');
		const ratio = round(triggerTimes.median / rawFetch.median);
		const triggerOverStack = round(triggerTimes.median / n8nStack.median);
		// With minimal entries every contender sends a GET /chat per entry, and n8n's helper costs far more per request
		// than fetch does, so there the node is judged against the stack it must use.
		const judged = minimalPercent > 0 ? triggerOverStack : ratio;
		return {
			chats,
			minimalPercent,
			sameWork: true,
			pages: reference.pages,
			requests: reference.requests,
			pageBytes: Math.round(reference.bytes / reference.pages),
			rawFetch,
			n8nStack,
			trigger: triggerTimes,
			ratio,
			stackRatio: round(n8nStack.median / rawFetch.median),
			triggerOverStack,
			clientCpuMs,
			clientCpuPerRequestUs: {
				rawFetch: perRequestUs('rawFetch'),
				n8nStack: perRequestUs('n8nStack'),
				trigger: perRequestUs('trigger'),
			},
			target: `${minimalPercent > 0 ? 'trigger / n8n stack' : 'trigger / bare fetch'} <= ${TARGET}`,
			met: judged <= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}

export interface P1TranscriptResult {
	chats: number;
	/** Both end with one item per chat, in the same order; each transcript has a line per message. */
	sameWork: true;
	simplified: Figures;
	transcript: Figures;
	clientCpuMs: { simplified: Figures; transcript: Figures };
	/** Median Transcript / median Simplified, wall time and client CPU. */
	ratio: number;
	cpuRatio: number;
	target: string;
	met: boolean;
}

/**
 * The same catch-up with Output Transcript against Output Simplified: what writing a transcript of every chat adds to
 * a poll that reads 20,000 chats (both read GET /operators once, for operator_name).
 */
export async function benchTranscriptCatchUp({
	runs,
	chats,
	log,
}: P1Options): Promise<P1TranscriptResult> {
	const { SvcChatTrigger } = await loadNodes();
	const trigger = new SvcChatTrigger();
	const sandbox = await startSandboxProcess({ chats, seed: 1 });
	try {
		const credentials = credentialsFor(sandbox);
		const outputs = ['simplified', 'transcript'] as const;
		const poll = async (output: (typeof outputs)[number]) => {
			const context = catchUpPollContext(trigger.description, credentials, chats, {}, output);
			return ((await trigger.poll.call(context))?.[0] ?? []).map((item) => item.json);
		};
		// Unmeasured first round; it fixes the ids every run must give, in order.
		const expectedIds = (await poll('simplified')).map((item) => String(item.id)).join();
		const check = (output: string, items: IDataObject[]) => {
			const transcribed = items.every(
				(item) =>
					output !== 'transcript' ||
					String(item.transcript).split('\n').length === Number(item.message_count) + 1,
			);
			if (items.length !== chats || items.map((item) => String(item.id)).join() !== expectedIds)
				throw new Error(`Output ${output} gave other chats (${items.length} of ${chats})`);
			if (!transcribed) throw new Error('A transcript lacks a line per message');
		};
		for (const output of outputs) {
			const logged = (await sandbox.requestLog()).length;
			check(output, await poll(output));
			const operators = (await sandbox.requestLog())
				.slice(logged)
				.filter((entry) => entry.path === '/api/v2/operators').length;
			if (operators !== 1) throw new Error(`Output ${output} sent ${operators} GET /operators`);
		}
		const { wallMs: times, cpuMs: cpuTimes } = await alternating(
			outputs,
			runs,
			poll,
			check,
			(run, wallMs) =>
				log(
					`P1 Transcript run ${run + 1}/${runs}: Simplified ${wallMs.simplified[run]} ms, Transcript ${wallMs.transcript[run]} ms`,
				),
		);
		const simplified = figures(times.simplified, 'ms');
		const transcript = figures(times.transcript, 'ms');
		const clientCpuMs = {
			simplified: figures(cpuTimes.simplified, 'ms'),
			transcript: figures(cpuTimes.transcript, 'ms'),
		};
		const ratio = round(transcript.median / simplified.median);
		return {
			chats,
			sameWork: true,
			simplified,
			transcript,
			clientCpuMs,
			ratio,
			cpuRatio: round(clientCpuMs.transcript.median / clientCpuMs.simplified.median),
			target: `trigger Transcript / Simplified <= ${TARGET}`,
			met: ratio <= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}
