// P8: a first catch-up behind a real network. The trigger reads 20,000 chats from the sandbox over HTTPS (self-signed,
// "Ignore SSL Issues" on) with a delay each way, against a bare client that keeps its connection alive; from the
// trigger's rate and n8n's poll budget it works out how long a 100,000-chat Beginning of History catch-up takes.
import https from 'node:https';

import { POLL_BUDGET_SHARE } from '../nodes/SvcChat/trigger/poll';
import type { ChatsReply } from '../nodes/SvcChat/types';
import { catchUpPollContext, credentialsFor } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess, type SandboxProcess } from './sandboxProcess';
import { elapsedMs, figures, round, type Figures } from './stats';

export interface P8Options {
	runs: number;
	chats: number;
	/** One way; a round trip is twice this. */
	latencyMs: number;
	log: (line: string) => void;
}

export interface P8Result {
	chats: number;
	latencyMs: number;
	pages: number;
	keepAlive: Figures;
	trigger: Figures;
	chatsPerSecond: { keepAlive: number; trigger: number };
	/** Median trigger / median kept-alive client. */
	ratio: number;
	/** (Median trigger - median kept-alive) per request: what n8n's new connection per request costs here. */
	newConnectionMsPerRequest: number;
	/** A 100,000-chat Beginning of History catch-up, polled Every Minute, at the trigger's measured rate. */
	plan: CatchUpPlan;
}

interface CatchUpPlan {
	backlog: number;
	/** n8n's poll budget (getPollBudgetMs) with its defaults: the 45 s poll timeout less its 9 s margin. */
	pollBudgetMs: number;
	/** The part of it after which the trigger requests no further page. */
	pageDeadlineMs: number;
	/** Max Chats per Poll's default, and what a poll then reads, how many polls and minutes the backlog takes. */
	defaultMaxChatsPerPoll: number;
	withDefault: { chatsPerPoll: number; polls: number; minutes: number };
	/** Max Chats per Poll raised above what the time budget allows: the budget decides. */
	budgetBound: { chatsPerPoll: number; polls: number; minutes: number };
}

const BACKLOG = 100_000;
// n8n 2.x, trigger-execution-context.factory: ceiling = min(pollTimeoutSeconds 45, leaseDurationSeconds 60), margin =
// min(max(20 % of it, 5 s), half of it).
const POLL_CEILING_MS = 45_000;
const POLL_BUDGET_MS =
	POLL_CEILING_MS - Math.min(Math.max(0.2 * POLL_CEILING_MS, 5_000), POLL_CEILING_MS / 2);

/** The baseline: bare HTTPS GETs on one kept-alive connection, JSON, the cursor passed back, the chats kept. */
async function keepAliveCatchUp(
	sandbox: SandboxProcess,
): Promise<{ chats: number; pages: number }> {
	const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
	const get = (url: string) =>
		new Promise<string>((resolve, reject) => {
			const request = https.get(
				url,
				{ agent, headers: { authorization: sandbox.authorization } },
				(reply) => {
					const chunks: Buffer[] = [];
					reply.on('data', (chunk: Buffer) => chunks.push(chunk));
					reply.on('error', reject);
					reply.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
				},
			);
			request.on('error', reject);
		});
	try {
		const chats: unknown[] = [];
		let since: string | number = 0;
		for (let pages = 1; ; pages++) {
			const page = JSON.parse(
				await get(`${sandbox.url}/api/v2/chats?since=${since}`),
			) as ChatsReply;
			for (const chat of page.chats) chats.push(chat);
			since = page.last_ts;
			if (!page.more_chats_available) return { chats: chats.length, pages };
		}
	} finally {
		agent.destroy();
	}
}

function planCatchUp(
	msPerPage: number,
	chatsPerPage: number,
	defaultMaxChatsPerPoll: number,
): CatchUpPlan {
	const pageDeadlineMs = POLL_BUDGET_MS * POLL_BUDGET_SHARE;
	// A page that starts before the deadline is still read to its end.
	const budgetChats = Math.ceil(pageDeadlineMs / msPerPage) * chatsPerPage;
	// Each poll stops at the end of the page on which Max Chats per Poll is reached.
	const defaultChats = Math.min(
		Math.ceil(defaultMaxChatsPerPoll / chatsPerPage) * chatsPerPage,
		budgetChats,
	);
	// One poll a minute, and every poll ends well inside its minute.
	const schedule = (chatsPerPoll: number) => {
		const polls = Math.ceil(BACKLOG / chatsPerPoll);
		return { chatsPerPoll, polls, minutes: polls };
	};
	return {
		backlog: BACKLOG,
		pollBudgetMs: POLL_BUDGET_MS,
		pageDeadlineMs,
		defaultMaxChatsPerPoll,
		withDefault: schedule(defaultChats),
		budgetBound: schedule(budgetChats),
	};
}

export async function benchNetwork({ runs, chats, latencyMs, log }: P8Options): Promise<P8Result> {
	const { SvcChatTrigger } = await loadNodes();
	const trigger = new SvcChatTrigger();
	const maxChatsOption = trigger.description.properties
		.flatMap((property) => property.options ?? [])
		.find((option) => 'name' in option && option.name === 'maxChatsPerPoll') as { default: number };
	const sandbox = await startSandboxProcess({ chats, seed: 1, https: true, latencyMs });
	try {
		const credentials = { ...credentialsFor(sandbox), ignoreSslIssues: true };
		let pages = 0;
		const runners = {
			keepAlive: async () => {
				const read = await keepAliveCatchUp(sandbox);
				if (read.chats !== chats)
					throw new Error(`The kept-alive client read ${read.chats} chats, not ${chats}`);
				pages = read.pages;
			},
			trigger: async () => {
				const result = await trigger.poll.call(
					catchUpPollContext(trigger.description, credentials, chats, {}),
				);
				const emitted = result?.[0].length ?? 0;
				if (emitted !== chats)
					throw new Error(`The trigger emitted ${emitted} chats, not ${chats}`);
			},
		};
		const times: Record<keyof typeof runners, number[]> = { keepAlive: [], trigger: [] };
		for (let run = 0; run < runs; run++) {
			const order =
				run % 2 ? (['trigger', 'keepAlive'] as const) : (['keepAlive', 'trigger'] as const);
			for (const name of order) {
				const startedAt = performance.now();
				await runners[name]();
				times[name].push(Math.round(elapsedMs(startedAt)));
			}
			log(
				`P8 run ${run + 1}/${runs}: kept-alive ${times.keepAlive[run]} ms, trigger ${times.trigger[run]} ms`,
			);
		}
		const keepAlive = figures(times.keepAlive, 'ms');
		const triggerTimes = figures(times.trigger, 'ms');
		const perSecond = (ms: number) => Math.round((chats * 1000) / ms);
		return {
			chats,
			latencyMs,
			pages,
			keepAlive,
			trigger: triggerTimes,
			chatsPerSecond: {
				keepAlive: perSecond(keepAlive.median),
				trigger: perSecond(triggerTimes.median),
			},
			ratio: round(triggerTimes.median / keepAlive.median),
			newConnectionMsPerRequest: round((triggerTimes.median - keepAlive.median) / pages, 1),
			plan: planCatchUp(triggerTimes.median / pages, chats / pages, maxChatsOption.default),
		};
	} finally {
		await sandbox.stop();
	}
}
