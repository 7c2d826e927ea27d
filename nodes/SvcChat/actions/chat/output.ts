// The "Output" parameter both chat operations share, and how it is read.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { CHAT_OUTPUT_OPTIONS, type ChatOutputMode } from '../../helpers/chatOutput';
import { showValue } from '../../helpers/values';
import { parameterError } from '../parameters';

export const chatOutputProperty: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	options: CHAT_OUTPUT_OPTIONS,
	default: 'simplified',
	description: 'The shape of the output items',
};

export function readChatOutputMode(context: IExecuteFunctions, itemIndex: number): ChatOutputMode {
	const mode = context.getNodeParameter('output', itemIndex, 'simplified') as string;
	if (!CHAT_OUTPUT_OPTIONS.some((option) => option.value === mode)) {
		throw parameterError(context, itemIndex, `'Output' has the unknown value ${showValue(mode)}`, 'Choose Raw, Simplified or One Item per Message.');
	}
	return mode as ChatOutputMode;
}
