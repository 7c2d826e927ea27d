// Runs Svc Chat and the trigger as n8n does when expressions give parameters values of any type, and judges the outcome.
import { inspect } from 'node:util';
import fc from 'fast-check';
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeParameters,
	type INodeTypeDescription,
	type IPollFunctions,
	type Logger,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../nodes/SvcChat/SvcChatTrigger.node';
import { router } from '../../nodes/SvcChat/actions/router';
import { operations } from '../../nodes/SvcChat/actions/resources';
import type { SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { createExecuteContext, createPollContext, strictParameters } from '../harness/contexts';
import { instantPauses } from '../harness/fixtures';
import type { FuzzField, FuzzOperation } from './catalogue';
import { anyHostileValue } from './hostileValues';

/** What a stored parameter holds when an expression gives its value: n8n shows dependent fields by the stored text. */
const EXPRESSION = '={{ $json.fuzzed }}';
/** A clear error is a sentence or two, whatever the input held. */
const MAX_MESSAGE_LENGTH = 1_000;
/** Codes the transport makes up itself; against a healthy sandbox they mean the node sent something broken. */
const TRANSPORT_CODES = new Set([
	'not-json',
	'unexpected-shape',
	'invalid-host',
	'cursor-stalled',
	'redirect',
]);
/** How JavaScript's own errors begin; none may reach the user, even wrapped. */
const CRASH_MESSAGE =
	/Cannot read propert|Cannot set propert|is not a function|is not iterable|is not a constructor|Cannot convert|Invalid time value|Invalid array length|Maximum call stack|Cannot destructure|Do not know how to serialize|Could not get parameter|does not declare/;

/** One input item: the stored parameters and, by path, the values expressions give at run time. */
interface FuzzItem {
	stored: INodeParameters;
	values: Record<string, unknown>;
	hostile: FuzzField[];
}

export interface FuzzRun {
	items: FuzzItem[];
	continueOnFail: boolean;
	/** Trigger only: a real poll or the editor's "Fetch Test Event". */
	mode: WorkflowExecuteMode;
	/** Trigger only: what the workflow's static data holds before the poll. */
	staticData: IDataObject;
}

type Tagged = { field: FuzzField; hostile: boolean; value: unknown };

/** Share of fields that get a wrong value in a run: some runs are all valid, some mostly wrong. */
const HOSTILITY = [0, 0.1, 0.25, 0.5] as const;

function fieldValue(field: FuzzField, hostility: number): fc.Arbitrary<Tagged> {
	const hostile = field.hostile ? fc.oneof(anyHostileValue, field.hostile) : anyHostileValue;
	return fc
		.tuple(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), field.valid, hostile)
		.map(([roll, valid, wrong]) =>
			roll < hostility
				? { field, hostile: true, value: wrong }
				: { field, hostile: false, value: valid },
		);
}

function fuzzItem(operation: FuzzOperation, hostility: number): fc.Arbitrary<FuzzItem> {
	return fc
		.tuple(...operation.fields.map((field) => fieldValue(field, hostility)))
		.map((tagged) => {
			const stored: INodeParameters = { ...(operation.fixed as INodeParameters) };
			const values: Record<string, unknown> = {};
			for (const { field, hostile, value } of tagged) {
				if (!hostile) setPath(stored, field.path, value);
				else {
					// A structural field given by an expression hides the fields it would show, as in n8n.
					if (field.structural) setPath(stored, field.path, EXPRESSION);
					values[field.path] = value;
				}
			}
			return { stored, values, hostile: tagged.filter((t) => t.hostile).map((t) => t.field) };
		});
}

export function fuzzRuns(
	operation: FuzzOperation,
	staticData: fc.Arbitrary<IDataObject> = fc.constant({}),
): fc.Arbitrary<FuzzRun> {
	return fc.constantFrom(...HOSTILITY).chain((hostility) =>
		fc.record({
			items: fc.array(fuzzItem(operation, hostility), {
				minLength: 1,
				maxLength: operation.maxItems,
			}),
			continueOnFail: fc.boolean(),
			mode: fc.constantFrom<WorkflowExecuteMode>('trigger', 'trigger', 'manual'),
			staticData,
		}),
	);
}

function setPath(target: IDataObject, path: string, value: unknown): void {
	const keys = path.split('.');
	let parent: IDataObject = target;
	for (const key of keys.slice(0, -1)) {
		const next = parent[key];
		if (next === undefined) parent[key] = {};
		else if (typeof next !== 'object' || next === null) return;
		parent = parent[key] as IDataObject;
	}
	parent[keys[keys.length - 1]] = value as IDataObject[string];
}

/** The stored parameters as n8n keeps them (defaults, only the shown ones), with the expression values put in. */
function parametersAtRunTime(description: INodeTypeDescription, item: FuzzItem): IDataObject {
	const resolved = strictParameters(description, item.stored) as IDataObject;
	const paths = Object.keys(item.values);
	for (const path of paths) {
		// A value inside a value an expression gave is part of that value already.
		if (paths.some((other) => other !== path && path.startsWith(`${other}.`))) continue;
		const head = path.split('.')[0];
		if (head in resolved) setPath(resolved, path, item.values[path]);
	}
	return resolved;
}

/**
 * n8n's getNodeParameter: a parameter the description never declares is a bug in the node (it throws); one that is
 * declared but hidden gives the fallback, or throws "Could not get parameter" without one; a value is never checked.
 */
function readAtRunTime(
	declared: Set<string>,
	parameters: IDataObject,
	name: string,
	hasFallback: boolean,
	fallback: unknown,
): unknown {
	const [head, ...rest] = name.split('.');
	if (!declared.has(head))
		throw new Error(`The node read "${name}", which its description does not declare`);
	if (!Object.hasOwn(parameters, head)) {
		if (!hasFallback) throw new Error(`Could not get parameter "${name}"`);
		return fallback;
	}
	let value: unknown = parameters[head];
	for (const key of rest)
		value = typeof value === 'object' && value !== null ? (value as IDataObject)[key] : undefined;
	return value === undefined ? fallback : value;
}

const declaredNames = (description: INodeTypeDescription) =>
	new Set(description.properties.map((property) => property.name));

/** Log lines the node writes, kept so the secrets test can search them. */
function recordingLogger(lines: string[]): Logger {
	const record = (level: string) => (message: string, meta?: object) =>
		lines.push(`${level} ${message}${meta ? ` ${inspect(meta, { depth: 6 })}` : ''}`);
	return {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
	} as Logger;
}

export type Outcome = { ok: true; items: INodeExecutionData[] } | { ok: false; error: unknown };

export async function runAction(
	credentials: SvcCredentials,
	run: FuzzRun,
	logLines: string[] = [],
): Promise<Outcome> {
	const node = new SvcChat();
	const description = node.description;
	const declared = declaredNames(description);
	const parameters = run.items.map((item) => parametersAtRunTime(description, item));
	const context = createExecuteContext({
		description,
		parameters: run.items[0].stored,
		credentials,
		items: run.items.map((_, index) => ({ json: { index } })),
		continueOnFail: run.continueOnFail,
	});
	context.getNodeParameter.mockImplementation(((
		name: string,
		itemIndex: number,
		...fallback: unknown[]
	) =>
		readAtRunTime(
			declared,
			parameters[itemIndex],
			name,
			fallback.length > 0,
			fallback[0],
		)) as never);
	context.logger = recordingLogger(logLines);
	try {
		// SvcChat.execute() is the router with n8n's sleep; here retries pause for no time.
		instantPauses();
		const [items] = await router.call(context, operations);
		return { ok: true, items };
	} catch (error) {
		return { ok: false, error };
	}
}

export interface TriggerRun {
	outcome: Outcome;
	staticDataBefore: string;
	staticDataAfter: string;
}

export async function runTrigger(
	credentials: SvcCredentials,
	run: FuzzRun,
	logLines: string[] = [],
): Promise<TriggerRun> {
	// n8n hands each poll its own static data object; a fuzzed one is shared between runs, so each gets a copy.
	const staticData = { ...run.staticData };
	const trigger = new SvcChatTrigger();
	const description = trigger.description;
	const declared = declaredNames(description);
	const [item] = run.items;
	const parameters = parametersAtRunTime(description, item);
	const context = createPollContext({
		description,
		parameters: item.stored,
		credentials,
		staticData,
		mode: run.mode,
	});
	context.getNodeParameter.mockImplementation(((name: string, ...fallback: unknown[]) =>
		readAtRunTime(declared, parameters, name, fallback.length > 0, fallback[0])) as never);
	(context as IPollFunctions).logger = recordingLogger(logLines);
	const staticDataBefore = JSON.stringify(staticData);
	let outcome: Outcome;
	try {
		// Retries pause for no time here.
		instantPauses();
		const result = await trigger.poll.call(context);
		outcome = { ok: true, items: result?.[0] ?? [] };
	} catch (error) {
		outcome = { ok: false, error };
	}
	return { outcome, staticDataBefore, staticDataAfter: JSON.stringify(staticData) };
}

/** The error itself and every error it wraps. */
export function causeChain(error: unknown): unknown[] {
	const chain: unknown[] = [];
	for (
		let current = error;
		current !== undefined && current !== null && chain.length < 8;
		current = (current as { cause?: unknown }).cause
	) {
		chain.push(current);
	}
	return chain;
}

/** A JavaScript error (TypeError, RangeError…), or a plain Error no n8n error class wraps with meaning. */
function isCrash(error: unknown): boolean {
	if (!(error instanceof Error)) return true;
	if (
		error instanceof TypeError ||
		error instanceof RangeError ||
		error instanceof ReferenceError ||
		error instanceof SyntaxError
	)
		return true;
	return CRASH_MESSAGE.test(error.message);
}

const names = (fields: FuzzField[]) => fields.flatMap((field) => field.names);

function namesAField(message: string, fields: FuzzField[]): boolean {
	const lower = message.toLowerCase();
	return names(fields).some((name) => lower.includes(name.toLowerCase()));
}

/**
 * Why an outcome breaks the rules, or [] when it keeps them: success, or a NodeOperationError whose message names
 * a field that held a wrong value, or a NodeApiError carrying the server's own error code. Never a crash.
 */
export function problemsOf(outcome: Outcome, hostile: FuzzField[]): string[] {
	const problems: string[] = [];
	if (outcome.ok) {
		for (const [index, item] of outcome.items.entries()) {
			let serialised: string;
			try {
				serialised = JSON.stringify(item.json);
			} catch (error) {
				problems.push(`output item ${index} cannot be serialised: ${(error as Error).message}`);
				continue;
			}
			if (typeof item.json !== 'object' || item.json === null || Array.isArray(item.json))
				problems.push(`output item ${index} is not an object`);
			const failure = item.json.error;
			if (failure !== undefined) {
				// continue-on-fail: the error item carries the message of what would have been thrown.
				if (typeof failure !== 'string' || CRASH_MESSAGE.test(failure))
					problems.push(`error item ${index} shows a crash: ${short(failure)}`);
				else if (failure.length > MAX_MESSAGE_LENGTH)
					problems.push(`error item ${index} has a message of ${failure.length} characters`);
			}
			if (serialised.length > 5_000_000)
				problems.push(`output item ${index} is ${serialised.length} characters long`);
		}
		return problems;
	}
	const error = outcome.error;
	const crash = causeChain(error).find(isCrash);
	if (crash)
		return [
			`crashed: ${crash instanceof Error ? `${crash.constructor.name}: ${short(crash.message)}` : short(crash)}`,
		];
	const message = (error as Error).message;
	if (message.length > MAX_MESSAGE_LENGTH)
		problems.push(`the message is ${message.length} characters long`);
	if (error instanceof NodeOperationError) {
		if (!hostile.length) problems.push(`valid input failed: ${short(message)}`);
		else if (!namesAField(message, hostile))
			problems.push(`"${short(message)}" names none of ${JSON.stringify(names(hostile))}`);
	} else if (error instanceof NodeApiError) {
		const code = error.context.svcError as string | undefined;
		// A refusal inside a 200 reply carries the server's code as its httpCode (n8n's "Error code"); a status is an HTTP one.
		if (code === undefined || error.httpCode !== code || TRANSPORT_CODES.has(code)) {
			problems.push(
				`the request went wrong (error code ${error.httpCode}, ${code ?? 'no code'}): ${short(message)}`,
			);
		}
	} else {
		problems.push(`threw ${(error as Error)?.constructor?.name}: ${short(message)}`);
	}
	return problems;
}

function short(value: unknown): string {
	const text =
		typeof value === 'string'
			? value
			: inspect(value, { depth: 3, maxStringLength: 120, maxArrayLength: 5 });
	return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A failing run, shown without its 300,000-character strings. */
export function describeRun(run: FuzzRun): string {
	return inspect(
		run.items.map((item) => ({
			stored: item.stored,
			values: item.values,
			hostile: item.hostile.map((f) => f.path),
		})),
		{ depth: 6, maxStringLength: 80, maxArrayLength: 6, breakLength: 160 },
	).concat(
		` continueOnFail=${run.continueOnFail} mode=${run.mode} staticData=${short(run.staticData)}`,
	);
}
