// Medians, ranges and ratios of repeated measurements; the benchmarks report these, never a single run.

export interface Figures {
	unit: string;
	runs: number[];
	median: number;
	min: number;
	max: number;
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

export function figures(runs: number[], unit: string): Figures {
	if (!runs.length) throw new Error('No runs to summarise');
	return {
		unit,
		runs,
		median: round(median(runs)),
		min: Math.min(...runs),
		max: Math.max(...runs),
	};
}

/** "1,234 ms (min 1,100, max 1,500, 5 runs)". */
export function describe(value: Figures, digits = 0): string {
	const show = (n: number) =>
		n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
	return `${show(value.median)} ${value.unit} (min ${show(value.min)}, max ${show(value.max)}, ${value.runs.length} runs)`;
}

/** `list` rotated by `run` places, so that no contender always goes first (two of them alternate). */
export function rotated<T>(list: readonly T[], run: number): T[] {
	const shift = run % list.length;
	return [...list.slice(shift), ...list.slice(0, shift)];
}

export const elapsedMs = (startedAt: number) => performance.now() - startedAt;

/**
 * Runs two contenders `runs` times each, alternating which goes first; `check` sees each result after its clock stopped.
 * Gives the wall time and the client's CPU time (this process's) of every run, in ms.
 */
export async function alternating<Name extends string, Result>(
	names: readonly [Name, Name],
	runs: number,
	runOne: (name: Name) => Promise<Result>,
	check: (name: Name, result: Result) => void,
	afterRound: (run: number, wallMs: Record<Name, number[]>) => void,
): Promise<{ wallMs: Record<Name, number[]>; cpuMs: Record<Name, number[]> }> {
	const lists = () =>
		Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
	const [wallMs, cpuMs] = [lists(), lists()];
	for (let run = 0; run < runs; run++) {
		for (const name of run % 2 ? [...names].reverse() : names) {
			const startedAt = performance.now();
			const cpuAtStart = process.cpuUsage();
			const result = await runOne(name);
			wallMs[name].push(Math.round(elapsedMs(startedAt)));
			const cpu = process.cpuUsage(cpuAtStart);
			cpuMs[name].push(Math.round((cpu.user + cpu.system) / 1000));
			check(name, result);
		}
		afterRound(run, wallMs);
	}
	return { wallMs, cpuMs };
}
