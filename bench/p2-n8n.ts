// P2: a real n8n reads 10,000 chats with Svc Chat > Chat > Get Many (Return All), and with the HTTP Request node
// paging on last_ts until more_chats_available is false. Each run is one `n8n execute`, timed and measured (peak RSS).

import fs from 'node:fs';
import path from 'node:path';

import type { IDataObject, INode } from 'n8n-workflow';

import { sandboxCredential } from '../scripts/examples';
import { nodeOutput } from '../scripts/executions';
import { N8n, type Workflow } from '../scripts/n8n';
import { buildPackageInRepo, ensureRuntime, REPO_ROOT } from '../scripts/runtime';
import { run } from '../scripts/processes';
import { figures, median, rotated, round, type Figures } from './stats';
import { startSandboxProcess, type SandboxProcess } from './sandboxProcess';
import { executeBatch } from '../test/harness/executeBatch';
import { extractBase } from './p5-release';

export interface P2Options {
	runs: number;
	chats: number;
	log: (line: string) => void;
	/** A commit whose package P2 also runs, alternating with this tree's, in the same n8n runtime. */
	base?: string;
}

interface ExecuteMeasure {
	/** The workflow's own time: from its start to the end of the reading node, as n8n records it. */
	workflowMs: number;
	/** The whole `n8n execute` process, boot included. */
	processMs: number;
	/** Peak resident memory of the n8n process. */
	peakRssMb: number;
}

export interface P2Result {
	chats: number;
	svcChat: { workflowMs: Figures; processMs: Figures; peakRssMb: Figures; items: number };
	httpRequest: { workflowMs: Figures; processMs: Figures; peakRssMb: Figures; items: number };
	/** Median workflow time of Svc Chat / HTTP Request. */
	ratio: number;
	processRatio: number;
	target: string;
	met: boolean;
	/** The same export with Output Simplified and with Output Transcript: workflow times and their ratio. */
	transcript: {
		simplifiedMs: Figures;
		transcriptMs: Figures;
		ratio: number;
		/** The whole `n8n execute` of each (boot, the run, the output): garbage collection wherever it falls. */
		processRatio: number;
		target: string;
		met: boolean;
		/** What a user builds without Transcript: Get many operators, Get many chats (Raw), a Code node writing the same text. */
		codeNodeMs: Figures;
		/** Median workflow time Transcript / the Code node alternative, and whole process. */
		overCodeNode: number;
		processOverCodeNode: number;
	};
	/** With `--base`: Raw, Simplified and Transcript workflow times of this tree and of the base's package, alternating. */
	againstBase?: {
		base: string;
		shapes: Record<BaseShape, BaseComparison>;
	};
}

/**
 * A shape's times with each package. `ratio` is of the medians; `pairedRatio` the median of each round's this tree /
 * base, the two runs of a round being side by side in time: a machine that slows for minutes slows both.
 */
interface BaseComparison {
	current: Figures;
	base: Figures;
	ratio: number;
	pairedRatio: number;
}

const BASE_SHAPES = ['raw', 'simplified', 'transcript'] as const;
type BaseShape = (typeof BASE_SHAPES)[number];
/** What a base commit's package needs to be built: its sources and build files, this clone's node_modules. */
const PACKAGE_SOURCES = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js'];

/** Transcript's target: within 15 % of the same export with Simplified. */
const TRANSCRIPT_TARGET = 1.15;

const SVC_CREDENTIAL = { id: 'svcBenchCred0001', name: 'Svc sandbox (bench)' };
const BASIC_CREDENTIAL = { id: 'svcBenchBasic001', name: 'Svc sandbox Basic Auth (bench)' };
const EXECUTE_TIMEOUT_MS = 10 * 60_000;

const start: INode = {
	id: 'b0000000-0000-4000-8000-000000000001',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** Transcript's time zone in P2, named in the Code node alternative too, so that both write the same text. */
const ZONE = 'Europe/Berlin';

/** Start, then `nodes` one after the other. */
function workflow(id: string, name: string, ...nodes: INode[]): Workflow {
	const chain = [start, ...nodes];
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: chain[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	return {
		id,
		name,
		nodes: chain,
		connections,
		settings: { executionOrder: 'v1', timezone: ZONE },
		active: false,
	};
}

/** Svc Chat > Get many chats from cursor 0, Return All, with `output`. */
const svcWorkflow = (id: string, output: string) =>
	workflow(id, `Bench P2: Svc Chat Get Many (${output})`, {
		id: 'b0000000-0000-4000-8000-000000000002',
		name: 'Svc Chat',
		type: 'n8n-nodes-svc.svcChat',
		typeVersion: 1,
		position: [240, 0],
		parameters: {
			resource: 'chat',
			operation: 'getMany',
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
			output,
		},
		credentials: { svcApi: SVC_CREDENTIAL },
	});

/**
 * The Code node a user would write for Transcript's text without it (README, "The Transcript output"): the same lines,
 * operators named from a Get many operators node before it. It writes only `{id, transcript}`, not the record.
 */
const TRANSCRIPT_CODE = `
const zone = '${ZONE}';
const names = new Map();
for (const { json } of $('Operators').all()) {
	const name = typeof json.full_name === 'string' && json.full_name.trim();
	if (name) names.set(String(json.id), name + ' (operator)');
}
const KINDS = {
	visitor: ['visitor'], file_visitor: ['visitor', 'file'], contacts: ['visitor', 'contacts'],
	keyboard_response: ['visitor', 'button chosen'], operator: ['operator'], file_operator: ['operator', 'file'],
	keyboard: ['System', 'buttons offered'], contacts_request: ['System', 'contacts request'],
	for_operator: ['System', 'note for the operator'], info: ['System', 'info'], events: ['System', 'event'],
	operator_busy: ['System', 'operator busy'],
};
const textOf = (value) => (typeof value === 'string' && value.trim()) || undefined;
const hasId = (id) => typeof id === 'number' || (typeof id === 'string' && id !== '');
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
function messageText(kind, body) {
	if (typeof body === 'string' || body === undefined || body === null) return body ?? null;
	if (typeof body !== 'object') return String(body);
	const members = isObject(body) ? ['name', 'phone', 'email'].map((member) => textOf(body[member])) : [];
	if (members.some(Boolean) || (kind === 'contacts' && isObject(body))) return members.filter(Boolean).join(', ');
	return JSON.stringify(body);
}
function lineText(message, kind) {
	const text = messageText(message.kind, message.message);
	const data = (kind.startsWith('file_') || kind === 'keyboard_response') && message.data;
	if (!isObject(data)) return text ?? '';
	if (kind === 'keyboard_response') return text || (textOf(data.buttonId) ?? '');
	const name = textOf(data.filename) ?? text ?? 'a file without a name';
	const type = textOf(data.content_type);
	return type ? name + ' (' + type + ')' : name;
}
function timeOf(value) {
	const time = typeof value === 'string' ? DateTime.fromISO(value, { zone }) : null;
	return time && time.isValid ? time.toFormat('yyyy-MM-dd HH:mm:ss') : 'time unknown';
}
return $input.all().map(({ json: chat }) => {
	const lines = ['Chat ' + String(chat.id) + ', times in ' + zone];
	const messages = Array.isArray(chat.messages) ? chat.messages : [];
	if (!messages.length) lines.push('No messages.');
	const visitorName = textOf(chat.visitor?.fields?.name);
	const visitor = visitorName ? visitorName + ' (visitor)' : 'Visitor';
	for (const entry of messages) {
		const message = isObject(entry) ? entry : { message: entry };
		const kind = textOf(message.kind) ?? 'no kind';
		const [from = hasId(message.operator_id) ? 'operator' : 'Unknown', tag] = Object.hasOwn(KINDS, kind) ? KINDS[kind] : [undefined, kind];
		const operator = names.get(String(message.operator_id)) ?? (hasId(message.operator_id) ? 'Operator ' + message.operator_id : 'Operator');
		const who = from === 'operator' ? operator : from === 'visitor' ? visitor : from;
		const text = lineText(message, kind).replace(/\\s*[\\r\\n\\u2028\\u2029]+\\s*/g, ' / ') || '(empty)';
		lines.push('[' + timeOf(message.created_at) + '] ' + who + (tag ? ': [' + tag + '] ' : ': ') + text);
	}
	return { json: { id: String(chat.id), transcript: lines.join('\\n') } };
});
`;

const svcNode = (
	name: string,
	parameters: INode['parameters'],
	extra: Partial<INode> = {},
): INode => ({
	id: `b0000000-0000-4000-8000-0000000000${name === 'Operators' ? '07' : '08'}`,
	name,
	type: 'n8n-nodes-svc.svcChat',
	typeVersion: 1,
	position: [240, 0] as [number, number],
	parameters,
	credentials: { svcApi: SVC_CREDENTIAL },
	...extra,
});

/** Get many operators, Get many chats (Raw, run once for all the operators), then the Code node. */
const codeNodeWorkflow = () =>
	workflow(
		'svcBenchP2Code01',
		'Bench P2: Transcript written by a Code node',
		svcNode('Operators', {
			resource: 'operator',
			operation: 'getMany',
			returnAll: true,
			filters: {},
		}),
		svcNode(
			'Svc Chat',
			{
				resource: 'chat',
				operation: 'getMany',
				since: 'cursor',
				sinceCursor: '0',
				returnAll: true,
				output: 'raw',
			},
			{ executeOnce: true },
		),
		{
			id: 'b0000000-0000-4000-8000-000000000009',
			name: 'Code',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [480, 0],
			parameters: { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: TRANSCRIPT_CODE },
		},
	);

function benchWorkflows(sandbox: SandboxProcess): { svc: Workflow; http: Workflow } {
	const svc = svcWorkflow('svcBenchP2Svc001', 'raw');
	const http = workflow('svcBenchP2Http01', 'Bench P2: HTTP Request with pagination', {
		id: 'b0000000-0000-4000-8000-000000000003',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [240, 0],
		parameters: {
			url: `${sandbox.url}/api/v2/chats`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBasicAuth',
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'since', value: '0' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'since', value: '={{ $response.body.last_ts }}' }],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ $response.body.more_chats_available === false }}',
						requestInterval: 0,
					},
				},
			},
		},
		credentials: { httpBasicAuth: BASIC_CREDENTIAL },
	});
	return { svc, http };
}

/**
 * Reads a node's start and run time from what `n8n execute --rawOutput` prints. n8n exits before a large output is
 * flushed, so the print of 10,000 chats is cut short; the times come before each node's data, so they are there.
 */
function nodeTimes(
	stdout: string,
	nodeName: string,
): { startTime: number; executionTime: number; status: string } {
	const at = stdout.indexOf(`"${nodeName}": [`);
	const found =
		at < 0
			? null
			: /"startTime": (\d+),[\s\S]*?"executionTime": (\d+),\s*"executionStatus": "(\w+)"/.exec(
					stdout.slice(at, at + 5_000),
				);
	if (!found)
		throw new Error(`n8n execute printed no run of "${nodeName}":\n${stdout.slice(0, 3_000)}`);
	return { startTime: Number(found[1]), executionTime: Number(found[2]), status: found[3] };
}

/**
 * Runs one workflow under GNU time, for the peak RSS of the n8n process. With `toFile`, n8n prints to a file, which
 * it writes whole before it exits: the print of a node that follows 10,000 chats (the Code node) is then there too.
 */
async function execute(
	n8n: N8n,
	workflowId: string,
	readerName: string,
	{ toFile = false } = {},
): Promise<ExecuteMeasure> {
	const printed = path.join(n8n.userFolder, `execute-${workflowId}.json`);
	const file = toFile ? fs.openSync(printed, 'w') : undefined;
	const result = await run(
		'/usr/bin/time',
		['-v', n8n.runtime.nodeBin, n8n.runtime.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'],
		{
			// `execute` prints the run through its logger, which must be at info.
			env: { ...n8n.env, N8N_LOG_LEVEL: 'info' },
			cwd: n8n.userFolder,
			timeout: EXECUTE_TIMEOUT_MS,
			...(file === undefined ? {} : { stdout: file }),
		},
	).finally(() => file !== undefined && fs.closeSync(file));
	const stdout = file === undefined ? result.stdout : fs.readFileSync(printed, 'utf8');
	fs.rmSync(printed, { force: true });
	if (result.exitCode !== 0)
		throw new Error(
			`n8n execute --id=${workflowId} failed (${result.exitCode ?? result.signal}):\n${stdout.slice(0, 3_000)}\n${result.stderr.slice(-3_000)}`,
		);
	const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
	const first = nodeTimes(stdout, 'Start');
	const reader = nodeTimes(stdout, readerName);
	if (reader.status !== 'success')
		throw new Error(`${readerName} ended with status ${reader.status}`);
	return {
		workflowMs: reader.startTime + reader.executionTime - first.startTime,
		processMs: result.ms,
		peakRssMb: peakKb / 1024,
	};
}

/** One run of each through `execute-batch`, whose run data goes to files whole: both must give every chat. */
async function verifyOutputs(
	n8n: N8n,
	svc: Workflow,
	http: Workflow,
	chats: number,
): Promise<{ svcItems: number; httpItems: number }> {
	const { runs, errors } = await executeBatch(n8n, [svc.id, http.id]);
	if (Object.keys(errors).length)
		throw new Error(`The P2 workflows failed: ${JSON.stringify(errors)}`);
	const svcItems = nodeOutput(runs[svc.id], 'Svc Chat');
	const pages = nodeOutput(runs[http.id], 'HTTP Request');
	const httpChats = pages.reduce(
		(sum, page) => sum + (Array.isArray(page.chats) ? page.chats.length : 0),
		0,
	);
	const distinct = new Set(svcItems.map((chat) => String(chat.id))).size;
	if (svcItems.length !== chats || distinct !== chats || httpChats !== chats) {
		throw new Error(
			`Expected ${chats} chats from both workflows; Svc Chat gave ${svcItems.length} (${distinct} distinct), HTTP Request ${httpChats}`,
		);
	}
	return { svcItems: svcItems.length, httpItems: pages.length };
}

/**
 * One run of each shape through `execute-batch`: all give every chat, in the same order; each transcript is whole,
 * and the Code node wrote the same text as Transcript.
 */
async function verifyShapes(
	n8n: N8n,
	{ simplified, transcript, code }: Record<'simplified' | 'transcript' | 'code', Workflow>,
	chats: number,
) {
	const { runs, errors } = await executeBatch(n8n, [simplified.id, transcript.id, code.id]);
	if (Object.keys(errors).length)
		throw new Error(`The P2 Transcript workflows failed: ${JSON.stringify(errors)}`);
	const [plain, transcribed] = [simplified, transcript].map((one) =>
		nodeOutput(runs[one.id], 'Svc Chat'),
	);
	const written = nodeOutput(runs[code.id], 'Code');
	const differing = written.findIndex(
		(item, index) =>
			item.id !== transcribed[index]?.id || item.transcript !== transcribed[index]?.transcript,
	);
	if (written.length !== chats || differing >= 0)
		throw new Error(
			`The Code node wrote other text than Transcript (${written.length} items; first differing: ${JSON.stringify(written[differing])} against ${JSON.stringify(transcribed[differing]?.transcript)})`,
		);
	const idsOf = (items: IDataObject[]) => items.map((item) => String(item.id)).join();
	const whole = transcribed.every(
		(item) => String(item.transcript).split('\n').length === Number(item.message_count) + 1,
	);
	if (plain.length !== chats || idsOf(plain) !== idsOf(transcribed) || !whole)
		throw new Error(
			`Expected ${chats} chats from Simplified and Transcript, in the same order, each transcript whole; got ${plain.length} and ${transcribed.length}`,
		);
}

/** The base commit's package, extracted from git and built once (`.cache/bench-base/<sha>/dist`). */
function buildBasePackage(commit: string): string {
	const dir = extractBase(commit, PACKAGE_SOURCES);
	if (!fs.existsSync(path.join(dir, 'dist'))) buildPackageInRepo(dir);
	return dir;
}

/**
 * An n8n of the same runtime with the base commit's package and the Raw, Simplified and Transcript workflows, which
 * must give every chat there too; then this tree and the base alternate in each round, the shapes rotating.
 */
async function measureAgainstBase({
	runtime,
	current,
	sandbox,
	workflows,
	base,
	runs,
	chats,
	log,
}: {
	runtime: N8n['runtime'];
	current: N8n;
	sandbox: SandboxProcess;
	workflows: Record<BaseShape, Workflow>;
	base: string;
	runs: number;
	chats: number;
	log: (line: string) => void;
}): Promise<NonNullable<P2Result['againstBase']>> {
	const baseDir = buildBasePackage(base);
	const baseN8n = await N8n.create({ runtime });
	try {
		baseN8n.installPackage(baseDir);
		await baseN8n.importCredentials([sandboxCredential(sandbox, SVC_CREDENTIAL)]);
		await baseN8n.importWorkflows(Object.values(workflows));
		const { runs: baseRuns, errors } = await executeBatch(
			baseN8n,
			Object.values(workflows).map((one) => one.id),
		);
		const short = BASE_SHAPES.filter(
			(shape) => nodeOutput(baseRuns[workflows[shape].id], 'Svc Chat').length !== chats,
		);
		if (Object.keys(errors).length || short.length)
			throw new Error(
				`The base's P2 workflows did not give ${chats} chats (${short.join(', ')}): ${JSON.stringify(errors)}`,
			);
		await baseN8n.stop();
		const versions = { current, base: baseN8n };
		const times = Object.fromEntries(
			BASE_SHAPES.map((shape) => [shape, { current: [] as number[], base: [] as number[] }]),
		) as Record<BaseShape, Record<'current' | 'base', number[]>>;
		for (let run = 0; run < runs; run++) {
			for (const shape of rotated(BASE_SHAPES, run)) {
				for (const version of rotated(['current', 'base'] as const, run)) {
					const { workflowMs } = await execute(versions[version], workflows[shape].id, 'Svc Chat', {
						toFile: true,
					});
					times[shape][version].push(workflowMs);
					log(
						`P2 against the base, run ${run + 1}/${runs} ${shape} ${version}: workflow ${workflowMs} ms`,
					);
				}
			}
		}
		const shapes = Object.fromEntries(
			BASE_SHAPES.map((shape) => {
				const [mine, theirs] = [
					figures(times[shape].current, 'ms'),
					figures(times[shape].base, 'ms'),
				];
				const paired = mine.runs.map((ms, run) => ms / theirs.runs[run]);
				const ratio = round(mine.median / theirs.median);
				return [shape, { current: mine, base: theirs, ratio, pairedRatio: round(median(paired)) }];
			}),
		) as Record<BaseShape, BaseComparison>;
		return { base: baseDir.split(path.sep).pop() ?? base, shapes };
	} finally {
		await baseN8n.dispose();
	}
}

export async function benchRealN8n({ runs, chats, log, base }: P2Options): Promise<P2Result> {
	log('P2: building the package and checking the n8n runtime…');
	buildPackageInRepo();
	const runtime = ensureRuntime();
	const sandbox = await startSandboxProcess({ chats, seed: 2 });
	const n8n = await N8n.create({ runtime });
	try {
		n8n.installPackage(REPO_ROOT);
		await n8n.importCredentials([
			sandboxCredential(sandbox, SVC_CREDENTIAL),
			{
				...BASIC_CREDENTIAL,
				type: 'httpBasicAuth',
				data: { user: sandbox.admin.email, password: sandbox.admin.password },
			},
		]);
		const { svc, http } = benchWorkflows(sandbox);
		const shapes = {
			simplified: svcWorkflow('svcBenchP2Simple', 'simplified'),
			transcript: svcWorkflow('svcBenchP2Trans1', 'transcript'),
			code: codeNodeWorkflow(),
		};
		await n8n.importWorkflows([svc, http, ...Object.values(shapes)]);
		const { svcItems, httpItems } = await verifyOutputs(n8n, svc, http, chats);
		log(
			`P2: both workflows give all ${chats} chats (Svc Chat ${svcItems} items, HTTP Request ${httpItems} page items)`,
		);
		await verifyShapes(n8n, shapes, chats);
		log(
			`P2: Simplified, Transcript and the Code node give all ${chats} chats, each transcript a line per message, the Code node's the same text`,
		);
		// Importing started the server: measured without it, and `n8n execute` takes its task-broker port.
		await n8n.stop();

		const measured: Record<'svc' | 'http', ExecuteMeasure[]> = { svc: [], http: [] };
		for (let run = 0; run < runs; run++) {
			// Alternate which goes first, so that neither always meets a warmer machine.
			const order = run % 2 ? (['http', 'svc'] as const) : (['svc', 'http'] as const);
			for (const which of order) {
				const measure =
					which === 'svc'
						? await execute(n8n, svc.id, 'Svc Chat')
						: await execute(n8n, http.id, 'HTTP Request');
				measured[which].push(measure);
				log(
					`P2 run ${run + 1}/${runs} ${which}: workflow ${measure.workflowMs} ms, process ${measure.processMs} ms, peak RSS ${measure.peakRssMb.toFixed(0)} MB`,
				);
			}
		}
		const summary = (list: ExecuteMeasure[], items: number) => ({
			workflowMs: figures(
				list.map((m) => m.workflowMs),
				'ms',
			),
			processMs: figures(
				list.map((m) => m.processMs),
				'ms',
			),
			peakRssMb: figures(
				list.map((m) => round(m.peakRssMb, 1)),
				'MB',
			),
			items,
		});
		// Simplified, Transcript and the Code node alternative, in a rotating order.
		const shapeNames = ['simplified', 'transcript', 'code'] as const;
		const shapeMs = {
			simplified: [] as number[],
			transcript: [] as number[],
			code: [] as number[],
		};
		const shapeProcessMs = {
			simplified: [] as number[],
			transcript: [] as number[],
			code: [] as number[],
		};
		for (let run = 0; run < runs; run++) {
			for (const shape of rotated(shapeNames, run)) {
				const reader = shape === 'code' ? 'Code' : 'Svc Chat';
				const { workflowMs, processMs } = await execute(n8n, shapes[shape].id, reader, {
					toFile: true,
				});
				shapeMs[shape].push(workflowMs);
				shapeProcessMs[shape].push(processMs);
				log(
					`P2 run ${run + 1}/${runs} ${shape}: workflow ${workflowMs} ms, process ${processMs} ms`,
				);
			}
		}
		const simplifiedMs = figures(shapeMs.simplified, 'ms');
		const transcriptMs = figures(shapeMs.transcript, 'ms');
		const transcriptRatio = round(transcriptMs.median / simplifiedMs.median);
		const codeNodeMs = figures(shapeMs.code, 'ms');
		const processMedian = (shape: (typeof shapeNames)[number]) =>
			figures(shapeProcessMs[shape], 'ms').median;
		const againstBase =
			base === undefined
				? undefined
				: await measureAgainstBase({
						runtime,
						current: n8n,
						sandbox,
						workflows: { raw: svc, simplified: shapes.simplified, transcript: shapes.transcript },
						base,
						runs,
						chats,
						log,
					});
		const svcChat = summary(measured.svc, svcItems);
		const httpRequest = summary(measured.http, httpItems);
		const ratio = round(svcChat.workflowMs.median / httpRequest.workflowMs.median);
		return {
			chats,
			svcChat,
			httpRequest,
			ratio,
			processRatio: round(svcChat.processMs.median / httpRequest.processMs.median),
			target: 'workflow time Svc Chat / HTTP Request <= 1.0',
			met: ratio <= 1.0,
			transcript: {
				simplifiedMs,
				transcriptMs,
				ratio: transcriptRatio,
				processRatio: round(processMedian('transcript') / processMedian('simplified')),
				target: `workflow time Transcript / Simplified <= ${TRANSCRIPT_TARGET}`,
				met: transcriptRatio <= TRANSCRIPT_TARGET,
				codeNodeMs,
				overCodeNode: round(transcriptMs.median / codeNodeMs.median),
				processOverCodeNode: round(processMedian('transcript') / processMedian('code')),
			},
			againstBase,
		};
	} finally {
		await n8n.dispose();
		await sandbox.stop();
	}
}
