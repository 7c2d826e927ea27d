// `npm run bench [-- --only P1,P3 --runs 5]`: P1-P4 against the sandbox over loopback, P8 behind a simulated network;
// prints the figures and writes them to bench/results/latest.json. Timings are medians of several runs and ratios, never a single absolute time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import {
	benchCatchUp,
	benchTranscriptCatchUp,
	type P1Result,
	type P1TranscriptResult,
} from './p1-catchup';
import { benchWaitingCatchUp, type P1WaitingResult } from './p1-waiting';
import { benchRealN8n, type P2Result } from './p2-n8n';
import { benchBroadcast, type P3Result } from './p3-broadcast';
import { benchMemory, type P4Result } from './p4-memory';
import { benchNetwork, type P8Result } from './p8-network';
import { benchNewestFirst, type P9Result } from './p9-newest';
import { benchLoginGuard, type P10Result } from './p10-guard';
import { benchSimplifiedRelease, LAST_RELEASE, type P5Result } from './p5-release';
import { describe } from './stats';
import { killAllNow } from '../scripts/processes';

const RESULTS_FILE = path.join(__dirname, 'results/latest.json');
const BENCHMARKS = ['P1', 'P2', 'P3', 'P4', 'P5', 'P8', 'P9', 'P10'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

const USAGE = `Usage: npm run bench -- [--only P1,P2,P3,P4,P5,P8,P9,P10] [--runs N] [--base COMMIT]

  --only   which benchmarks to run (default all; P2 needs the n8n runtime, installed on first use)
  --runs   runs per measurement, at least 5 (default 5; P1 and P5 use 2 more, they are the noisiest)
  --base   the release P5 compares against (default ${LAST_RELEASE.slice(0, 7)}, the package before response times);
           given, P2 also runs that commit's package beside this tree's, alternating`;

const log = (line: string) => console.log(`  ${line}`);
const yesNo = (met: boolean) => (met ? 'MET' : 'NOT MET');

function printP1(r: P1Result): string[] {
	const perRequest = r.clientCpuPerRequestUs;
	return [
		`P1 trigger catch-up, ${r.chats.toLocaleString('en-US')} chats in ${r.pages} pages (${(r.pageBytes / 1024).toFixed(0)} kB each), ${r.minimalPercent} % minimal entries, ${r.requests.toLocaleString('en-US')} requests each (same work, same chats)`,
		`   bare fetch loop      ${describe(r.rawFetch)}`,
		`   n8n-core stack alone ${describe(r.n8nStack)}  (x${r.stackRatio} of fetch)`,
		`   trigger poll         ${describe(r.trigger)}  (x${r.triggerOverStack} of the stack alone)`,
		`   client CPU medians   fetch ${r.clientCpuMs.rawFetch.median} ms, stack ${r.clientCpuMs.n8nStack.median} ms, trigger ${r.clientCpuMs.trigger.median} ms`,
		`   client CPU / request fetch ${perRequest.rawFetch} µs, stack ${perRequest.n8nStack} µs, trigger ${perRequest.trigger} µs`,
		`   ratio trigger / fetch = ${r.ratio}, trigger / stack = ${r.triggerOverStack}; target ${r.target}: ${yesNo(r.met)}`,
	];
}

function printP1Transcript(r: P1TranscriptResult): string[] {
	return [
		`P1 trigger catch-up, ${r.chats.toLocaleString('en-US')} chats, Output Simplified against Transcript (same chats)`,
		`   Simplified   ${describe(r.simplified)}, client CPU ${describe(r.clientCpuMs.simplified)}`,
		`   Transcript   ${describe(r.transcript)}, client CPU ${describe(r.clientCpuMs.transcript)}`,
		`   ratio Transcript / Simplified = ${r.ratio} (client CPU ${r.cpuRatio}); target ${r.target}: ${yesNo(r.met)}`,
	];
}

function printP1Waiting(r: P1WaitingResult): string[] {
	return [
		`P1 trigger catch-up, ${r.chats.toLocaleString('en-US')} chats, Every Change against Visitor Waiting (${r.waiting} waiting, same requests)`,
		`   Every Change      ${describe(r.everyChange)}`,
		`   Visitor Waiting   ${describe(r.visitorWaiting)}`,
		`   ratio Visitor Waiting / Every Change = ${r.ratio}; target ${r.target}: ${yesNo(r.met)}`,
	];
}

function printP2(r: P2Result): string[] {
	return [
		`P2 real n8n, ${r.chats.toLocaleString('en-US')} chats`,
		`   Svc Chat Get Many (Return All)   workflow ${describe(r.svcChat.workflowMs)}, n8n process ${describe(r.svcChat.processMs)}, peak RSS ${describe(r.svcChat.peakRssMb)}`,
		`   HTTP Request with pagination     workflow ${describe(r.httpRequest.workflowMs)}, n8n process ${describe(r.httpRequest.processMs)}, peak RSS ${describe(r.httpRequest.peakRssMb)}`,
		`   items out: Svc Chat ${r.svcChat.items} (one per chat), HTTP Request ${r.httpRequest.items} (one per page)`,
		`   ratio Svc Chat / HTTP Request = ${r.ratio} (whole process ${r.processRatio}); target ${r.target}: ${yesNo(r.met)}`,
		`   Svc Chat Get Many, Output Simplified  workflow ${describe(r.transcript.simplifiedMs)}`,
		`   Svc Chat Get Many, Output Transcript  workflow ${describe(r.transcript.transcriptMs)}`,
		`   ratio Transcript / Simplified = ${r.transcript.ratio} (whole process ${r.transcript.processRatio}); target ${r.transcript.target}: ${yesNo(r.transcript.met)}`,
		`   Operators, Get Many (Raw), Code node writing the same text  workflow ${describe(r.transcript.codeNodeMs)}`,
		`   ratio Transcript / Code node = ${r.transcript.overCodeNode} (whole process ${r.transcript.processOverCodeNode})`,
		...Object.entries(r.againstBase?.shapes ?? {}).map(
			([shape, { current, base, ratio, pairedRatio }]) =>
				`   Get Many, Output ${shape}, this tree against ${r.againstBase?.base.slice(0, 7)}  workflow ${describe(current)} against ${describe(base)}: ratio ${ratio} (of each round's pair ${pairedRatio})`,
		),
	];
}

function printP5(r: P5Result): string[] {
	const { shapingUsPerChat: shaping } = r;
	return [
		`P5 trigger catch-up, ${r.chats.toLocaleString('en-US')} chats, Output Simplified: this tree against ${r.base.slice(0, 7)} (same records, plus the response times)`,
		`   release   ${describe(r.release.wallMs)}, client CPU ${describe(r.release.cpuMs)}`,
		`   current   ${describe(r.current.wallMs)}, client CPU ${describe(r.current.cpuMs)}`,
		`   shaping alone, CPU per chat: release ${describe(shaping.release, 2)}, current ${describe(shaping.current, 2)}`,
		`   ratio current / release = ${r.ratio} (client CPU ${r.cpuRatio}); target ${r.target}: ${yesNo(r.met)}`,
		`   Output Transcript: release ${describe(r.transcript.release.wallMs)}, current ${describe(r.transcript.current.wallMs)}`,
		`   ratio current / release = ${r.transcript.ratio} (client CPU ${r.transcript.cpuRatio}); target ${r.target}: ${yesNo(r.transcript.met)}`,
	];
}

function printP3(r: P3Result): string[] {
	return [
		`P3 broadcast, ${r.items.toLocaleString('en-US')} input items`,
		`   Svc Chat Send Template (default batching)  ${describe(r.svcChat.ms)} in ${r.svcChat.requests} request(s)`,
		`   one request per item                       ${describe(r.perItem.ms)} in ${r.perItem.requests} requests`,
		`   the limit: same requests, bare fetch       ${describe(r.limit.ms)} in ${r.limit.requests} request(s)`,
		`   Svc Chat is ${r.speedup}x faster than one per item; target ${r.target}: ${yesNo(r.met)}`,
		`   Svc Chat / limit = ${r.overLimit} (1 is the limit)`,
	];
}

function printP4(r: P4Result): string[] {
	const line = (label: string, b: P4Result['large']) =>
		`   ${label} ${b.chats.toLocaleString('en-US')} chats, ${b.polls} polls: peak growth per poll ${describe(b.peakGrowthMb, 1)}; retained after all polls ${b.retainedMb} MB; max RSS ${b.maxRssMb} MB`;
	return [
		`P4 trigger memory, Max Chats per Poll ${r.maxChatsPerPoll}`,
		line('backlog ', r.large),
		line('baseline', r.baseline),
		`   growth ratio ${r.ratio} for a ${r.backlogRatio}x larger backlog; target ${r.target}: ${yesNo(r.met)}`,
	];
}

function printP9(r: P9Result): string[] {
	return [
		`P9 a visitor's 5 newest chats among ${r.chats.toLocaleString('en-US')} over 30 days: Newest First against the 30 days read forward, filtered`,
		`   requests: Newest First ${r.requests.newestFirst}, forward ${r.requests.forward} (x${r.requestRatio} fewer; target: ${r.target}) ${r.met ? 'MET' : 'NOT MET'}`,
		`   wall: Newest First ${describe(r.newestFirst.wallMs)}; forward ${describe(r.forward.wallMs)}`,
	];
}

function printP10(r: P10Result): string[] {
	return [
		`P10 the login guard on a healthy account: ${r.workflows} triggers of one credential due at the same second`,
		...r.perReplyDelay.map(
			(d) =>
				`   answers in ${d.replyDelayMs} ms: one alone ${describe(d.alone)}; ${r.workflows} together ${describe(d.burst)} (x${d.ratio})`,
		),
	];
}

function printP8(r: P8Result): string[] {
	const { plan } = r;
	const minutes = (schedule: P8Result['plan']['withDefault']) =>
		`${schedule.chatsPerPoll.toLocaleString('en-US')} chats a poll, ${schedule.polls} polls, about ${schedule.minutes} minutes`;
	return [
		`P8 catch-up behind a network, ${r.chats.toLocaleString('en-US')} chats in ${r.pages} pages over HTTPS, ${r.latencyMs} ms each way (${2 * r.latencyMs} ms round trip)`,
		`   bare client, kept alive   ${describe(r.keepAlive)}  ${r.chatsPerSecond.keepAlive} chats/s`,
		`   trigger poll              ${describe(r.trigger)}  ${r.chatsPerSecond.trigger} chats/s`,
		`   trigger / kept-alive = ${r.ratio}: n8n's new connection per request costs ${r.newConnectionMsPerRequest} ms a page here`,
		`   ${plan.backlog.toLocaleString('en-US')} chats from Beginning of History, polled Every Minute:`,
		`     Max Chats per Poll ${plan.defaultMaxChatsPerPoll.toLocaleString('en-US')} (default): ${minutes(plan.withDefault)}`,
		`     Max Chats per Poll raised, n8n's poll budget decides (${plan.pollBudgetMs / 1000} s, pages requested for ${plan.pageDeadlineMs / 1000} s): ${minutes(plan.budgetBound)}`,
	];
}

async function main(): Promise<number> {
	const { values } = parseArgs({
		options: {
			only: { type: 'string' },
			runs: { type: 'string' },
			base: { type: 'string' },
			help: { type: 'boolean', default: false },
		},
	});
	if (values.help) {
		console.log(USAGE);
		return 0;
	}
	const only = (values.only?.split(',').map((name) => name.trim().toUpperCase()) ?? [
		...BENCHMARKS,
	]) as Benchmark[];
	const unknown = only.filter((name) => !BENCHMARKS.includes(name));
	const runs = Math.max(5, Number(values.runs ?? 5));
	if (unknown.length || !Number.isInteger(runs)) throw new Error(`Bad arguments.\n${USAGE}`);

	const startedAt = new Date();
	const machine = {
		cpus: os.cpus().length,
		cpuModel: os.cpus()[0]?.model,
		node: process.version,
		loadAverageAtStart: os.loadavg().map((load) => Number(load.toFixed(2))),
	};
	console.log(
		`Svc benchmarks (${only.join(', ')}; ${runs} runs each) on ${machine.cpus} CPUs, load ${machine.loadAverageAtStart.join(' ')}, Node ${machine.node}`,
	);

	const results: Partial<Record<Benchmark, unknown>> = {};
	const report: string[] = [];
	const failures: string[] = [];
	const steps: Record<Benchmark, () => Promise<string[]>> = {
		P1: async () => {
			const result = await benchCatchUp({ runs: runs + 2, chats: 20_000, log });
			// The same catch-up with 30 % of list entries minimal (spec 2.4): every contender reads them with GET /chat.
			const minimal = await benchCatchUp({ runs, chats: 20_000, log, minimalPercent: 30 });
			const cost = Math.round((100 * minimal.trigger.median) / result.trigger.median) / 100;
			// The same catch-up with Output Transcript, against Simplified.
			const transcript = await benchTranscriptCatchUp({ runs: runs + 2, chats: 20_000, log });
			const waiting = await benchWaitingCatchUp({ runs: runs + 2, chats: 20_000, log });
			results.P1 = {
				...result,
				minimalEntries30: { ...minimal, triggerOverPlainTrigger: cost },
				transcript,
				visitorWaiting: waiting,
			};
			return [
				...printP1(result),
				...printP1(minimal),
				`   30 % minimal entries: trigger x${cost} of the trigger with none`,
				...printP1Transcript(transcript),
				...printP1Waiting(waiting),
			];
		},
		P5: async () => {
			const result = await benchSimplifiedRelease({
				runs: runs + 2,
				chats: 20_000,
				base: values.base,
				log,
			});
			results.P5 = result;
			return printP5(result);
		},
		P3: async () => {
			const result = await benchBroadcast({ runs, items: 10_000, log });
			results.P3 = result;
			return printP3(result);
		},
		P4: async () => {
			const result = await benchMemory({
				backlogs: { large: 100_000, baseline: 20_000 },
				maxChatsPerPoll: 1_000,
				log,
			});
			results.P4 = result;
			return printP4(result);
		},
		P8: async () => {
			const result = await benchNetwork({ runs, chats: 20_000, latencyMs: 30, log });
			results.P8 = result;
			return printP8(result);
		},
		P9: async () => {
			const result = await benchNewestFirst({ runs, chats: 20_000, log });
			results.P9 = result;
			return printP9(result);
		},
		P10: async () => {
			const result = await benchLoginGuard({ runs, log });
			results.P10 = result;
			return printP10(result);
		},
		P2: async () => {
			const result = await benchRealN8n({ runs, chats: 10_000, log, base: values.base });
			results.P2 = result;
			return printP2(result);
		},
	};
	// P2 last: it builds the package and boots a real n8n for every run.
	for (const name of (['P1', 'P5', 'P3', 'P4', 'P8', 'P9', 'P10', 'P2'] as const).filter((step) =>
		only.includes(step),
	)) {
		console.log(`\n${name}…`);
		const stepStarted = Date.now();
		try {
			const lines = await steps[name]();
			report.push(...lines);
			console.log(lines.join('\n'));
		} catch (error) {
			const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
			failures.push(`${name}: ${message}`);
			results[name] = { error: message };
			console.error(`${name} failed: ${message}`);
		}
		log(`(${name} took ${((Date.now() - stepStarted) / 1000).toFixed(0)} s)`);
	}

	const finishedAt = new Date();
	fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
	fs.writeFileSync(
		RESULTS_FILE,
		`${JSON.stringify({ startedAt, finishedAt, machine: { ...machine, loadAverageAtEnd: os.loadavg().map((load) => Number(load.toFixed(2))) }, runs, results, report }, null, 2)}\n`,
	);
	console.log(
		`\n=== Summary (${((finishedAt.getTime() - startedAt.getTime()) / 60_000).toFixed(1)} min) ===\n${report.join('\n')}`,
	);
	if (failures.length)
		console.log(`\nFailed: ${failures.map((failure) => failure.split('\n')[0]).join('; ')}`);
	console.log(`\nWritten to ${path.relative(process.cwd(), RESULTS_FILE)}`);
	return failures.length ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error instanceof Error ? error.message : error);
		killAllNow();
		process.exit(1);
	},
);
