// Reads the "Auth Token" parameter shared by Pair Token and Remove Token.
import type { IExecuteFunctions } from 'n8n-workflow';

import { describeValueType } from '../../helpers/values';
import { parameterError } from '../parameters';

/** The token exactly as given (whitespace-only counts as empty), numbers as text; undefined when empty. */
export function readAuthToken(context: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = context.getNodeParameter('authToken', itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string') {
		throw parameterError(
			context,
			itemIndex,
			`'Auth Token' must be text, but it is ${describeValueType(value)}`,
			'Give the token as text, e.g. the value your website stores in window.svc_auth_token.',
		);
	}
	return value.trim() ? value : undefined;
}
