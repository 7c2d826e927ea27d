// Reads the "Auth Token" parameter shared by Pair Token and Remove Token.
import type { ParameterReader } from '../../parameters';

/** The token exactly as given (whitespace-only counts as empty), numbers as text; undefined when empty. */
export function readAuthToken(read: ParameterReader): string | undefined {
	return read.optionalText('authToken', {
		keepSpaces: true,
		fix: 'Give the token as text, e.g. the value your website stores in window.svc_auth_token.',
	});
}
