// Reads and checks the trigger's parameters once per poll, and names the starting point the cursor belongs to.
import type { IPollFunctions } from 'n8n-workflow';

import type { ChatOutputMode } from '../helpers/chatOutput';
import { dateToCursor, toEpochMs, zonelessAsUtc } from '../helpers/time';
import { showValue } from '../helpers/values';
import { pollParameters } from '../parameters';
import { DEFAULT_MAX_CHATS_PER_POLL, triggerProperties } from './description';

type StartFrom = 'now' | 'beginning' | 'date';
type EmitMode = 'everyChange' | 'newChats' | 'finishedChats';

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

/** Read once per poll; every bad value is an error naming the field, as in the action node. */
export function readTriggerSettings(context: IPollFunctions): TriggerSettings {
	const read = pollParameters(context, triggerProperties);
	const startFrom = read.choice<StartFrom>('startFrom');
	// Checked as a whole first, so a broken Options value is named as such rather than through one of its fields.
	read.collection('options', { fix: 'Set the options in the editor again.' });
	const common = {
		startFrom,
		emit: read.choice<EmitMode>('emit'),
		output: read.choice<ChatOutputMode>('output'),
		// A bad value is an error like a bad Limit, never a silent fall back to the default.
		maxChatsPerPoll: read.positiveInteger('options.maxChatsPerPoll', {
			fallback: DEFAULT_MAX_CHATS_PER_POLL,
			fix: `Set a whole number of 1 or more, or remove the option to read up to ${DEFAULT_MAX_CHATS_PER_POLL.toLocaleString('en-US')} chats per poll.`,
		}),
		includeCursor: read.flag('options.includeCursor'),
	};

	if (startFrom === 'now') return { ...common, startKey: 'now' };
	if (startFrom === 'beginning') return { ...common, startKey: 'beginning', startCursor: '0' };

	// n8n's date picker gives a date-time without a zone; like every time of the API, it is read as UTC.
	const startDate = zonelessAsUtc(read.raw('startDate'));
	const startCursor = dateToCursor(startDate);
	const startMs = toEpochMs(startDate);
	if (startCursor === undefined || startMs === undefined) {
		const [dateLabel, startFromLabel] = [read.label('startDate'), read.label('startFrom')];
		throw read.fail(
			`'${dateLabel}' is not a valid date: ${showValue(startDate)}`,
			`Pick a date in '${dateLabel}', or choose another '${startFromLabel}'.`,
		);
	}
	return {
		...common,
		startKey: `date:${startCursor}`,
		startCursor,
		startCreatedAt: new Date(startMs).toISOString(),
	};
}
