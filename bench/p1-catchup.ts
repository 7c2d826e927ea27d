// P1: the trigger catches up on 20,000 changed chats (one poll, through n8n-core's request stack) against the physical
// limit, a bare fetch loop paging the same endpoint with the same cursor. Also timed: n8n-core's stack alone, paging
// the same way, to tell the trigger's own cost from the request machinery n8n makes every node use.
import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import type { Chat, ChatsReply } from '../nodes/SvcChat/types';
import { n8nHttpRequestWithAuthentication } from '../test/harness/n8nRequest';
import { credentialsFor, pollContextForTiming } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess, type SandboxProcess } from './sandboxProcess';
import { elapsedMs, figures, round, type Figures } from './stats';

export interface P1Options {
	runs: number;
	chats: number;
	log: (line: string) => void;
	/** Percent of list entries the sandbox sends as {id, created_at} (spec 2.4); the trigger reads each in full. */
	minimalPercent?: number;
}

export interface P1Result {
	chats: number;
	/** Percent of /chats entries sent minimal; the trigger fetches each with GET /chat, the baselines do not. */
	minimalPercent: number;
	pages: number;
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
	clientCpuMs: Record<'rawFetch' | 'n8nStack' | 'trigger', Figures>;
	target: string;
	met: boolean;
}

const TARGET = 1.15;

/** The baseline: Node's fetch (keep-alive), JSON, the cursor passed back; the chats are kept, as any client would. */
async function rawFetchCatchUp(
	sandbox: SandboxProcess,
): Promise<{ chats: number; pages: number; bytes: number }> {
	const chats: Chat[] = [];
	let since: string | number = 0;
	let bytes = 0;
	for (let pages = 1; ; pages++) {
		const reply = await fetch(`${sandbox.url}/api/v2/chats?since=${since}`, {
			headers: { authorization: sandbox.authorization },
		});
		// What reply.json() does, with the size counted on the way.
		const text = await reply.text();
		bytes += Buffer.byteLength(text);
		const page = JSON.parse(text) as ChatsReply;
		for (const chat of page.chats) chats.push(chat);
		since = page.last_ts;
		if (!page.more_chats_available) return { chats: chats.length, pages, bytes };
	}
}

/**
 * n8n-core's request helper with the credential's Basic auth and the request options the transport sends, paging the
 * same way, with no node code around it.
 */
async function n8nStackCatchUp(sandbox: SandboxProcess, node: INode): Promise<number> {
	const credentials = credentialsFor(sandbox);
	const chats: Chat[] = [];
	let since: string | number = 0;
	for (;;) {
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: `${sandbox.url}/api/v2/chats`,
			qs: { since },
			auth: { username: credentials.email, password: credentials.password },
			json: true,
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
		};
		const reply = (await n8nHttpRequestWithAuthentication(node, request)) as { body: string };
		const page = JSON.parse(reply.body) as ChatsReply;
		for (const chat of page.chats) chats.push(chat);
		since = page.last_ts;
		if (!page.more_chats_available) return chats.length;
	}
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
			pollContextForTiming({
				description: trigger.description,
				// Raw output: the baseline keeps the chats as the API sends them, so the trigger does too.
				parameters: {
					startFrom: 'beginning',
					emit: 'everyChange',
					output: 'raw',
					options: { maxChatsPerPoll: chats * 10 },
				},
				credentials,
				staticData,
			});

		let pages = 0;
		let pageBytes = 0;
		const runners: Record<'rawFetch' | 'n8nStack' | 'trigger', () => Promise<void>> = {
			rawFetch: async () => {
				const read = await rawFetchCatchUp(sandbox);
				if (read.chats !== chats)
					throw new Error(`The fetch loop read ${read.chats} chats, not ${chats}`);
				pages = read.pages;
				pageBytes = Math.round(read.bytes / read.pages);
			},
			n8nStack: async () => {
				const read = await n8nStackCatchUp(sandbox, newContext({}).getNode());
				if (read !== chats) throw new Error(`The n8n stack loop read ${read} chats, not ${chats}`);
			},
			trigger: async () => {
				const staticData: IDataObject = {};
				const result = await trigger.poll.call(newContext(staticData));
				const emitted = result?.[0].length ?? 0;
				if (emitted !== chats)
					throw new Error(`The trigger emitted ${emitted} chats, not ${chats}`);
				// Caught up to the end: its stored cursor is the server's latest.
				if (staticData.cursor !== String(latest))
					throw new Error(
						`The trigger stopped at cursor ${String(staticData.cursor)}, not ${latest}`,
					);
			},
		};
		const names = Object.keys(runners) as Array<keyof typeof runners>;
		const times: Record<keyof typeof runners, number[]> = {
			rawFetch: [],
			n8nStack: [],
			trigger: [],
		};
		// CPU time of this process (the sandbox runs in its own): the client's work alone, much less noisy than wall time.
		const cpuTimes: Record<keyof typeof runners, number[]> = {
			rawFetch: [],
			n8nStack: [],
			trigger: [],
		};
		// One unmeasured round first: JIT compilation and the sandbox's first replies are not what is compared.
		for (const name of names) await runners[name]();
		for (let run = 0; run < runs; run++) {
			// Rotate the order, so that none always runs first (or last) in a round.
			for (const name of [
				...names.slice(run % names.length),
				...names.slice(0, run % names.length),
			]) {
				const startedAt = performance.now();
				const cpuAtStart = process.cpuUsage();
				await runners[name]();
				times[name].push(Math.round(elapsedMs(startedAt)));
				const cpu = process.cpuUsage(cpuAtStart);
				cpuTimes[name].push(Math.round((cpu.user + cpu.system) / 1000));
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
		const rawFetch = figures(times.rawFetch, 'ms');
		const n8nStack = figures(times.n8nStack, 'ms');
		const triggerTimes = figures(times.trigger, 'ms');
		const ratio = round(triggerTimes.median / rawFetch.median);
		return {
			chats,
			minimalPercent,
			pages,
			pageBytes,
			rawFetch,
			n8nStack,
			trigger: triggerTimes,
			ratio,
			stackRatio: round(n8nStack.median / rawFetch.median),
			triggerOverStack: round(triggerTimes.median / n8nStack.median),
			clientCpuMs,
			target: `trigger / bare fetch <= ${TARGET}`,
			met: ratio <= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}
