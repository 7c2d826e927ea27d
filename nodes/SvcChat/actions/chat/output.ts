// The "Output" parameters both chat operations share (Raw, Simplified, Selected Fields, One Item per Message), and how they are read.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ChatOutput, ChatOutputMode } from '../../helpers/chatOutput';
import { CHAT_OUTPUT_OPTIONS, SELECTABLE_CHAT_FIELDS } from '../../descriptions/chatOutput';
import { describeValueType, showValue } from '../../helpers/values';
import { itemParameters } from '../../parameters';

const SELECTED_FIELDS = 'selectedFields';

/** The trigger's three shapes, plus Selected Fields: small items for AI agents (n8n's guidelines for tool nodes). */
const ACTION_OUTPUT_OPTIONS = [
	...CHAT_OUTPUT_OPTIONS.slice(0, 2),
	{
		name: 'Selected Fields',
		value: SELECTED_FIELDS,
		description: 'Only the fields you pick, as the API gives them, plus the chat ID',
	},
	...CHAT_OUTPUT_OPTIONS.slice(2),
];

export const chatOutputProperties: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: ACTION_OUTPUT_OPTIONS,
		default: 'simplified',
		description: 'The shape of the output items',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: SELECTABLE_CHAT_FIELDS,
		default: ['created_at', 'operator_id', 'visitor'],
		displayOptions: { show: { output: [SELECTED_FIELDS] } },
		description: 'The chat fields to return; the chat ID is always included',
	},
];

export function readChatOutputMode(context: IExecuteFunctions, itemIndex: number): ChatOutput {
	const read = itemParameters(context, itemIndex, chatOutputProperties);
	const mode = read.choice<ChatOutputMode | typeof SELECTED_FIELDS>('output', {
		fallback: 'simplified',
		fix: 'Choose Raw, Simplified, Selected Fields or One Item per Message.',
	});
	if (mode !== SELECTED_FIELDS) return mode;
	const fields = read.raw('fields', []);
	const known = SELECTABLE_CHAT_FIELDS.map((field) => field.value);
	if (
		!Array.isArray(fields) ||
		fields.some((field) => typeof field !== 'string' || !known.includes(field))
	) {
		throw read.fail(
			`'${read.label('fields')}' must be a list of chat fields, not ${Array.isArray(fields) ? showValue(fields) : describeValueType(fields)}`,
			`Choose fields in the editor, or give a list of: ${known.join(', ')}.`,
		);
	}
	return { fields: fields as string[] };
}
