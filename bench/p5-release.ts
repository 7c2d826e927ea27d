// P5: Output Simplified against the last release: the trigger's catch-up of 20,000 chats with this tree's code and with
// the code of a base commit, read from git at run time (never a copy kept here), alternating; and the shaping alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import type { IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';

import type { Chat } from '../nodes/SvcChat/types';
import { catchUpPollContext, credentialsFor } from './harness';
import { startSandboxProcess } from './sandboxProcess';
import { alternating, figures, round, type Figures } from './stats';

/** The package before the response times (issue 53): main as the round began. `--base` names another commit. */
export const LAST_RELEASE = '26185eb8fecdcfed3bfc07dbcb4f89926aa70ac1';
const TARGET = 1.05;
/** What the release lacks, and this tree adds to each Simplified record. */
const NEW_FIELDS = [
	'first_response_seconds',
	'queue_seconds',
	'duration_seconds',
	'last_activity_at',
	'department_id',
	'operator_name',
];

/**
 * Fields whose rule changed since the release, on purpose: compared for presence, not value. The one contact rule
 * (visitorContact: the visitor fields, else the latest contacts message) fills the visitor's name, e-mail and phone
 * where the release left null; its unit tests hold the rule.
 */
const REDEFINED_FIELDS = ['visitor_name', 'visitor_email', 'visitor_phone'];
/** The chat's id is text since issue 65 (one column type for numbers and GUIDs): compared as text. */
const asText = (key: string, value: unknown) => (key === 'id' ? String(value) : value);

export const ROOT = path.resolve(__dirname, '..');
type Formatter = (chats: Chat[]) => IDataObject[];
interface Code {
	trigger: INodeType & { poll: NonNullable<INodeType['poll']> };
	simplify: Formatter;
}

/** The node code of a tree (`nodes/` under `root`): the trigger, and its Simplified formatter. */
export async function codeIn(root: string): Promise<Code> {
	const nodes = path.join(root, 'nodes/SvcChat');
	// Full file names: tsx would take "SvcChatTrigger.node" for the codex JSON beside it (see nodes.ts).
	const triggerModule = (await import(path.join(nodes, 'SvcChatTrigger.node.ts'))) as {
		SvcChatTrigger: new () => Code['trigger'];
	};
	const outputFile = ['output/chatOutput.ts', 'helpers/chatOutput.ts']
		.map((file) => path.join(nodes, file))
		.find((file) => fs.existsSync(file));
	if (!outputFile) throw new Error(`No chatOutput.ts under ${nodes}`);
	const { chatFormatter } = (await import(
		outputFile
	)) as typeof import('../nodes/SvcChat/output/chatOutput');
	// Given the operators' names (none: the release has no operator_name), Simplified needs no context.
	const simplify = await chatFormatter({} as IExecuteFunctions, 'simplified', {
		operatorNames: new Map(),
	});
	return { trigger: new triggerModule.SvcChatTrigger(), simplify };
}

/**
 * The base commit's `entries` (its `nodes/` unless told), extracted from git into .cache/ (inside the repository, so
 * that it finds the same node_modules). Needs the commit in the clone's history: a shallow clone must fetch it first.
 */
export function extractBase(commit: string, entries = ['nodes']): string {
	const git = (...args: string[]) =>
		execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
	const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
	const dir = path.join(ROOT, '.cache/bench-base', sha);
	const missing = entries.filter((entry) => !fs.existsSync(path.join(dir, entry)));
	if (missing.length) {
		fs.mkdirSync(dir, { recursive: true });
		const tar = execFileSync('git', ['archive', '--format=tar', sha, ...missing], { cwd: ROOT });
		execFileSync('tar', ['-x', '-C', dir], { input: tar });
	}
	return dir;
}

/**
 * What every run must give: the release's records in order, each plus the response times (NEW_FIELDS), the fields the
 * rule changed (REDEFINED_FIELDS) compared for presence only. Also run at unit speed (test/unit/system/benchChecks).
 */
export function sameAsRelease(releaseItems: IDataObject[]) {
	const comparable = (items: IDataObject[]) =>
		items.map((item) =>
			Object.entries(item)
				.filter(([key]) => !NEW_FIELDS.includes(key))
				.map(([key, value]) => [
					key,
					REDEFINED_FIELDS.includes(key) ? '(redefined)' : asText(key, value),
				])
				.sort(([a], [b]) => String(a).localeCompare(String(b))),
		);
	const expected = JSON.stringify(comparable(releaseItems));
	return (version: string, items: IDataObject[]) => {
		if (items.length !== releaseItems.length || JSON.stringify(comparable(items)) !== expected)
			throw new Error(
				`${version} gave other records than the release (${items.length} of ${releaseItems.length})`,
			);
		const complete = items.every((item) => NEW_FIELDS.every((field) => field in item));
		if (version === 'current' && !complete) throw new Error('A record lacks the response times');
	};
}

export interface P5Result {
	chats: number;
	base: string;
	/** The same chats in the same order, and every record the release's plus the new fields (checked on every run). */
	sameWork: true;
	/** The trigger's catch-up with Output Simplified: wall time and the client's CPU. */
	release: { wallMs: Figures; cpuMs: Figures };
	current: { wallMs: Figures; cpuMs: Figures };
	/** Median current / median release. */
	ratio: number;
	cpuRatio: number;
	/** The shaping alone: µs of CPU per chat of Simplified over chats already read, each version. */
	shapingUsPerChat: { release: Figures; current: Figures };
	target: string;
	met: boolean;
	/** The same catch-up with Output Transcript: the same chats in the same order, each with its transcript. */
	transcript: {
		release: { wallMs: Figures; cpuMs: Figures };
		current: { wallMs: Figures; cpuMs: Figures };
		ratio: number;
		cpuRatio: number;
		met: boolean;
	};
}

export async function benchSimplifiedRelease({
	runs,
	chats,
	base = LAST_RELEASE,
	log,
}: {
	runs: number;
	chats: number;
	base?: string;
	log: (line: string) => void;
}): Promise<P5Result> {
	const baseDir = extractBase(base);
	const versions = { release: await codeIn(baseDir), current: await codeIn(ROOT) };
	const sandbox = await startSandboxProcess({ chats, seed: 1 });
	try {
		const credentials = credentialsFor(sandbox);
		const poll = async (version: keyof typeof versions, output = 'simplified') => {
			const { trigger } = versions[version];
			const context = catchUpPollContext(trigger.description, credentials, chats, {}, output);
			return ((await trigger.poll.call(context))?.[0] ?? []).map((item) => item.json);
		};
		// Unmeasured first round; it fixes what every run must give: the release's records, in order.
		const check = sameAsRelease(await poll('release'));
		check('current', await poll('current'));

		const order = ['release', 'current'] as const;
		const { wallMs: wall, cpuMs: cpu } = await alternating(
			order,
			runs,
			(version) => poll(version),
			check,
			(run, wallMs) =>
				log(
					`P5 run ${run + 1}/${runs}: release ${wallMs.release[run]} ms, current ${wallMs.current[run]} ms`,
				),
		);

		// The shaping alone, on the chats as read (Raw): CPU time of ten passes over all of them per measurement.
		const raw = (await poll('current', 'raw')) as Chat[];
		const shaping = { release: [] as number[], current: [] as number[] };
		for (let run = 0; run < runs * 2; run++) {
			for (const version of run % 2 ? [...order].reverse() : order) {
				const cpuAtStart = process.cpuUsage();
				for (let pass = 0; pass < 10; pass++) versions[version].simplify(raw);
				const used = process.cpuUsage(cpuAtStart);
				shaping[version].push(round((used.user + used.system) / (10 * raw.length), 2));
			}
		}
		// The same catch-up with Output Transcript (it names the operators in both versions): the release's chats in order.
		const transcribed = (items: IDataObject[]) =>
			items.map((item) => `${String(item.id)}:${typeof item.transcript}`).join();
		const releaseTranscribed = transcribed(await poll('release', 'transcript'));
		const checkTranscripts = (version: string, items: IDataObject[]) => {
			if (items.length !== chats || transcribed(items) !== releaseTranscribed)
				throw new Error(
					`${version} gave other chats or no transcript (${items.length} of ${chats})`,
				);
		};
		const transcriptRuns = await alternating(
			order,
			runs,
			(version) => poll(version, 'transcript'),
			checkTranscripts,
			(run, wallMs) =>
				log(
					`P5 Transcript run ${run + 1}/${runs}: release ${wallMs.release[run]} ms, current ${wallMs.current[run]} ms`,
				),
		);
		const summary = (times: typeof transcriptRuns) => {
			const [release, current] = order.map((version) => ({
				wallMs: figures(times.wallMs[version], 'ms'),
				cpuMs: figures(times.cpuMs[version], 'ms'),
			}));
			const ratio = round(current.wallMs.median / release.wallMs.median);
			const cpuRatio = round(current.cpuMs.median / release.cpuMs.median);
			return { release, current, ratio, cpuRatio, met: ratio <= TARGET };
		};
		const { release, current, ratio, cpuRatio } = summary({ wallMs: wall, cpuMs: cpu });
		return {
			chats,
			base,
			sameWork: true,
			release,
			current,
			ratio,
			cpuRatio,
			shapingUsPerChat: {
				release: figures(shaping.release, 'µs'),
				current: figures(shaping.current, 'µs'),
			},
			target: `trigger catch-up, current / release <= ${TARGET}`,
			met: ratio <= TARGET,
			transcript: summary(transcriptRuns),
		};
	} finally {
		await sandbox.stop();
	}
}
