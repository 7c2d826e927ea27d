// Reads and checks the trigger's parameters once per poll, and names the starting point the cursor belongs to.
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import type { ChatOutputMode } from '../helpers/chatOutput';
import { CHAT_OUTPUT_OPTIONS } from '../descriptions/chatOutput';
import { dateToCursor, toEpochMs, zonelessAsUtc } from '../helpers/time';
import { describeValueType, isPlainObject, showValue } from '../helpers/values';
import { DEFAULT_MAX_CHATS_PER_POLL } from './description';

export type StartFrom = 'now' | 'beginning' | 'date';
export type EmitMode = 'everyChange' | 'newChats' | 'finishedChats';

export interface TriggerSettings {
	startFrom: StartFrom;
	/** Names the starting point a stored cursor was started from; when it changes, the cursor starts again (rule 7). */
	startKey: string;
	/** Where Beginning of History and Specific Date start; Now finds its cursor on the server instead. */
	startCursor?: string;
	/** Chats created before this are not "new" (New Chats Only); undefined means no such limit. */
	startCreatedAt?: string;
	emit: EmitMode;
	output: ChatOutputMode;
	maxChatsPerPoll: number;
	includeCursor: boolean;
}

const START_FROM: readonly StartFrom[] = ['now', 'beginning', 'date'];
const EMIT_MODES: readonly EmitMode[] = ['everyChange', 'newChats', 'finishedChats'];
const OUTPUT_MODES = CHAT_OUTPUT_OPTIONS.map((option) => option.value as ChatOutputMode);

/** One of an options parameter's values. A hand-edited workflow may hold anything; it must not be read as some default. */
function readChoice<T extends string>(
	context: IPollFunctions,
	name: string,
	label: string,
	choices: readonly T[],
): T {
	const value = context.getNodeParameter(name) as unknown;
	if (typeof value === 'string' && (choices as readonly string[]).includes(value))
		return value as T;
	throw new NodeOperationError(
		context.getNode(),
		`'${label}' has the unknown value ${showValue(value)}`,
		{
			description: `Choose '${label}' in the editor again.`,
		},
	);
}

function readOptions(context: IPollFunctions): IDataObject {
	const options = context.getNodeParameter('options', {}) as unknown;
	if (options === undefined || options === null) return {};
	if (!isPlainObject(options)) {
		throw new NodeOperationError(
			context.getNode(),
			`'Options' must be a set of fields, but it is ${describeValueType(options)}`,
			{
				description: 'Set the options in the editor again.',
			},
		);
	}
	return options as IDataObject;
}

export function readTriggerSettings(context: IPollFunctions): TriggerSettings {
	const startFrom = readChoice(context, 'startFrom', 'Start From', START_FROM);
	const options = readOptions(context);
	const rawMax = options.maxChatsPerPoll ?? DEFAULT_MAX_CHATS_PER_POLL;
	// Only numbers and numeric text count (anything else means the default); Number() of some objects throws.
	const requestedMax =
		typeof rawMax === 'number' || typeof rawMax === 'string' ? Number(rawMax) : Number.NaN;
	const common = {
		startFrom,
		emit: readChoice(context, 'emit', 'Trigger On', EMIT_MODES),
		output: readChoice(context, 'output', 'Output', OUTPUT_MODES),
		maxChatsPerPoll: Number.isFinite(requestedMax)
			? Math.max(1, Math.floor(requestedMax))
			: DEFAULT_MAX_CHATS_PER_POLL,
		includeCursor: options.includeCursor === true,
	};

	if (startFrom === 'now') return { ...common, startKey: 'now' };
	if (startFrom === 'beginning') return { ...common, startKey: 'beginning', startCursor: '0' };

	// n8n's date picker gives a date-time without a zone; like every time of the API, it is read as UTC.
	const startDate = zonelessAsUtc(context.getNodeParameter('startDate'));
	const startCursor = dateToCursor(startDate);
	const startMs = toEpochMs(startDate);
	if (startCursor === undefined || startMs === undefined) {
		throw new NodeOperationError(
			context.getNode(),
			`'Start Date' is not a valid date: ${showValue(startDate)}`,
			{
				description: "Pick a date in 'Start Date', or choose another 'Start From'.",
			},
		);
	}
	return {
		...common,
		startKey: `date:${startCursor}`,
		startCursor,
		startCreatedAt: new Date(startMs).toISOString(),
	};
}
