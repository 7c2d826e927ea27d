// P9: a visitor's 5 newest chats on a busy account (20,000 chats over 30 days), Get Many Newest First with a Visitor
// against what example 12 did before: the 30 days read forward, filtered by the visitor, the last 5 kept.
import type { IDataObject } from 'n8n-workflow';

import { REGULAR_VISITOR } from '../sandbox/data';
import { credentialsFor, executeContextForTiming } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess } from './sandboxProcess';
import { alternating, figures, round, type Figures } from './stats';

const TARGET = 10;
const DAY_MS = 86_400_000;

export interface P9Result {
	chats: number;
	/** Both gave the visitor's same 5 chats, newest first (checked on every run). */
	sameWork: true;
	requests: { newestFirst: number; forward: number };
	requestRatio: number;
	newestFirst: { wallMs: Figures };
	forward: { wallMs: Figures };
	target: string;
	met: boolean;
}

export async function benchNewestFirst({
	runs,
	chats,
	log,
}: {
	runs: number;
	chats: number;
	log: (line: string) => void;
}): Promise<P9Result> {
	const sandbox = await startSandboxProcess({ chats, seed: 1, regularVisitor: true });
	try {
		const node = new (await loadNodes()).SvcChat();
		const credentials = credentialsFor(sandbox);
		const visitor = { visitor: REGULAR_VISITOR.emails[0], visitorMatch: 'email' };
		const parameters = {
			newestFirst: { order: 'newestFirst', limit: 5, lookBackDays: 30, ...visitor },
			forward: {
				sinceDate: new Date(Date.now() - 30 * DAY_MS).toISOString(),
				returnAll: true,
				...visitor,
			},
		};
		const run = async (name: keyof typeof parameters) => {
			const context = executeContextForTiming({
				description: node.description,
				parameters: { resource: 'chat', operation: 'getMany', output: 'raw', ...parameters[name] },
				credentials,
			});
			const [output] = await node.execute.call(context);
			const ids = output.map((item: { json: IDataObject }) => item.json.id);
			return name === 'forward' ? ids.slice(-5).reverse() : ids;
		};
		const requestsOf = async (name: keyof typeof parameters) => {
			const before = (await sandbox.requestLog()).length;
			const ids = await run(name);
			return { ids, requests: (await sandbox.requestLog()).length - before };
		};
		// Unmeasured first round: what both must give, and how many requests each sends.
		const [newest, forward] = [await requestsOf('newestFirst'), await requestsOf('forward')];
		const expected = JSON.stringify(forward.ids);
		const check = (name: string, ids: unknown[]) => {
			if (ids.length !== 5 || JSON.stringify(ids) !== expected)
				throw new Error(`${name} gave other chats: ${JSON.stringify(ids)}, not ${expected}`);
		};
		check('newestFirst', newest.ids);
		const { wallMs } = await alternating(
			['newestFirst', 'forward'] as const,
			runs,
			run,
			check,
			(at, wall) =>
				log(
					`P9 run ${at + 1}/${runs}: newest first ${wall.newestFirst[at]} ms, forward ${wall.forward[at]} ms`,
				),
		);
		const requestRatio = round(forward.requests / newest.requests, 1);
		return {
			chats,
			sameWork: true,
			requests: { newestFirst: newest.requests, forward: forward.requests },
			requestRatio,
			newestFirst: { wallMs: figures(wallMs.newestFirst, 'ms') },
			forward: { wallMs: figures(wallMs.forward, 'ms') },
			target: `forward requests / Newest First requests >= ${TARGET}`,
			met: requestRatio >= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}
