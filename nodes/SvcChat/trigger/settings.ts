// Reads and checks the trigger's parameters once per poll, and names the starting point the cursor belongs to.
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import type { ChatOutputMode } from '../helpers/chatOutput';
import { dateToCursor, toEpochMs, zonelessAsUtc } from '../helpers/time';
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

export function readTriggerSettings(context: IPollFunctions): TriggerSettings {
	const startFrom = context.getNodeParameter('startFrom') as StartFrom;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const requestedMax = Number(options.maxChatsPerPoll ?? DEFAULT_MAX_CHATS_PER_POLL);
	const common = {
		startFrom,
		emit: context.getNodeParameter('emit') as EmitMode,
		output: context.getNodeParameter('output') as ChatOutputMode,
		maxChatsPerPoll: Number.isFinite(requestedMax) ? Math.max(1, Math.floor(requestedMax)) : DEFAULT_MAX_CHATS_PER_POLL,
		includeCursor: options.includeCursor === true,
	};

	if (startFrom === 'now') return { ...common, startKey: 'now' };
	if (startFrom === 'beginning') return { ...common, startKey: 'beginning', startCursor: '0' };

	// n8n's date picker gives a date-time without a zone; like every time of the API, it is read as UTC.
	const startDate = zonelessAsUtc(context.getNodeParameter('startDate'));
	const startCursor = dateToCursor(startDate);
	const startMs = toEpochMs(startDate);
	if (startCursor === undefined || startMs === undefined) {
		throw new NodeOperationError(context.getNode(), `Start Date is not a valid date: ${JSON.stringify(startDate)}`, {
			description: 'Pick a date in the Start Date field, or choose another Start From.',
		});
	}
	return {
		...common,
		startKey: `date:${startCursor}`,
		startCursor,
		startCreatedAt: new Date(startMs).toISOString(),
	};
}
