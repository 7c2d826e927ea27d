// P4's measuring process (run with --expose-gc): the trigger polls a sandbox's backlog with Max Chats per Poll 1,000
// until it has caught up, and reports the peak memory growth of each poll. Prints one JSON line.
import type { IDataObject } from 'n8n-workflow';

import { credentialsFor, pollContextForTiming } from './harness';
import { loadNodes } from './nodes';
import { DEFAULT_ADMIN } from '../sandbox';
import type { SandboxProcess } from './sandboxProcess';

export interface MemoryRun {
	polls: number;
	emitted: number;
	/** Per poll: peak (heap + external) during the poll minus the same after a full GC before it, in MB. */
	peakGrowthMb: number[];
	/** After a full GC: memory after the last poll minus before the first, in MB (what the polls kept). */
	retainedMb: number;
	/** The process's peak resident memory, in MB. */
	maxRssMb: number;
}

const MB = 1024 * 1024;
const SAMPLE_EVERY_MS = 1;

/** Memory the JavaScript side holds: the V8 heap and buffers outside it (reply bodies arrive as buffers). */
const used = () => {
	const memory = process.memoryUsage();
	return memory.heapUsed + memory.external;
};

async function pollUntilCaughtUp(
	sandbox: Pick<SandboxProcess, 'host' | 'admin' | 'url'>,
	maxChatsPerPoll: number,
	maxPolls: number,
): Promise<MemoryRun> {
	const collect = (globalThis as { gc?: () => void }).gc;
	if (!collect) throw new Error('Run with --expose-gc');
	const fullGc = () => {
		collect();
		collect();
	};
	const { SvcChatTrigger } = await loadNodes();
	const trigger = new SvcChatTrigger();
	const staticData: IDataObject = {};
	const context = pollContextForTiming({
		description: trigger.description,
		parameters: {
			startFrom: 'beginning',
			emit: 'everyChange',
			output: 'simplified',
			options: { maxChatsPerPoll },
		},
		credentials: credentialsFor(sandbox as SandboxProcess),
		staticData,
	});
	const latest = String(
		((await (await fetch(`${sandbox.url}/__control/cursor`)).json()) as { last_ts: number })
			.last_ts,
	);

	fullGc();
	const before = used();
	const peakGrowthMb: number[] = [];
	let emitted = 0;
	let polls = 0;
	while (staticData.cursor !== latest) {
		if (++polls > maxPolls)
			throw new Error(
				`Not caught up after ${maxPolls} polls (cursor ${String(staticData.cursor)}, latest ${latest})`,
			);
		fullGc();
		const base = used();
		let peak = base;
		// Samples while the poll waits for replies; the poll's end (all its items alive) is sampled below.
		const sampler = setInterval(() => (peak = Math.max(peak, used())), SAMPLE_EVERY_MS);
		let result = await trigger.poll.call(context);
		peak = Math.max(peak, used());
		clearInterval(sampler);
		emitted += result?.[0].length ?? 0;
		result = null;
		peakGrowthMb.push((peak - base) / MB);
	}
	fullGc();
	return {
		polls,
		emitted,
		peakGrowthMb,
		retainedMb: (used() - before) / MB,
		maxRssMb: process.resourceUsage().maxRSS / 1024,
	};
}

if (require.main === module) {
	const [url, maxChatsPerPoll, maxPolls] = process.argv.slice(2);
	const sandbox = { url, host: url, admin: DEFAULT_ADMIN };
	pollUntilCaughtUp(sandbox, Number(maxChatsPerPoll), Number(maxPolls)).then(
		(run) => console.log(`P4-RESULT ${JSON.stringify(run)}`),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
