// P4: the trigger's peak memory growth per poll (Max Chats per Poll 1,000) on a 100,000-chat backlog against a
// 20,000-chat one. Each backlog is polled to the end in a fresh process with --expose-gc, so that GC is forced
// between polls and the measurements do not share a heap.
import path from 'node:path';

import { run as runCommand } from '../scripts/processes';
import type { MemoryRun } from './p4-worker';
import { startSandboxProcess } from './sandboxProcess';
import { figures, round, type Figures } from './stats';

export interface P4Options {
	backlogs: { large: number; baseline: number };
	maxChatsPerPoll: number;
	log: (line: string) => void;
}

interface BacklogMemory {
	chats: number;
	polls: number;
	emitted: number;
	peakGrowthMb: Figures;
	retainedMb: number;
	maxRssMb: number;
}

export interface P4Result {
	maxChatsPerPoll: number;
	large: BacklogMemory;
	baseline: BacklogMemory;
	/** Median growth per poll, large backlog / baseline backlog: 1 means it does not scale with the backlog. */
	ratio: number;
	/** The backlogs' size ratio: what the growth ratio would be if memory scaled with the backlog. */
	backlogRatio: number;
	target: string;
	met: boolean;
}

const ROOT = path.resolve(__dirname, '..');
/** Well below the 5x of the backlogs: noise between polls stays under it, real scaling would not. */
const TARGET = 1.25;

async function measure(
	chats: number,
	maxChatsPerPoll: number,
	log: P4Options['log'],
): Promise<BacklogMemory> {
	const sandbox = await startSandboxProcess({ chats, seed: 4 });
	try {
		const maxPolls = Math.ceil(chats / maxChatsPerPoll) + 5;
		const result = await runCommand(
			path.join(ROOT, 'node_modules/.bin/tsx'),
			[
				'--expose-gc',
				path.join(ROOT, 'bench/p4-worker.ts'),
				sandbox.url,
				String(maxChatsPerPoll),
				String(maxPolls),
			],
			{ cwd: ROOT, timeout: 15 * 60_000 },
		);
		const line = /^P4-RESULT (.*)$/m.exec(result.stdout)?.[1];
		if (result.exitCode !== 0 || !line)
			throw new Error(
				`The P4 worker failed (${result.exitCode ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
			);
		const run = JSON.parse(line) as MemoryRun;
		if (run.emitted !== chats)
			throw new Error(`The trigger emitted ${run.emitted} chats of a ${chats}-chat backlog`);
		const memory = {
			chats,
			polls: run.polls,
			emitted: run.emitted,
			peakGrowthMb: figures(
				run.peakGrowthMb.map((mb) => round(mb, 2)),
				'MB',
			),
			retainedMb: round(run.retainedMb, 2),
			maxRssMb: round(run.maxRssMb, 1),
		};
		log(
			`P4 ${chats} chats: ${memory.polls} polls, peak growth per poll median ${memory.peakGrowthMb.median} MB (max ${memory.peakGrowthMb.max}), retained ${memory.retainedMb} MB, max RSS ${memory.maxRssMb} MB`,
		);
		return memory;
	} finally {
		await sandbox.stop();
	}
}

export async function benchMemory({
	backlogs,
	maxChatsPerPoll,
	log,
}: P4Options): Promise<P4Result> {
	const large = await measure(backlogs.large, maxChatsPerPoll, log);
	const baseline = await measure(backlogs.baseline, maxChatsPerPoll, log);
	const ratio = round(large.peakGrowthMb.median / baseline.peakGrowthMb.median);
	return {
		maxChatsPerPoll,
		large,
		baseline,
		ratio,
		backlogRatio: round(backlogs.large / backlogs.baseline, 1),
		target: `median peak growth per poll, ${backlogs.large} / ${backlogs.baseline} backlog <= ${TARGET}`,
		met: ratio <= TARGET,
	};
}
