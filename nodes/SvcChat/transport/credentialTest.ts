// The credential test: one cheap stored-data request through the transport, each failure with its own message.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { sendSvcRequest, type SvcCredentials, type SvcSend } from './index';

/**
 * Calls GET /departments (small, needs admin rights like every endpoint). The credential test context
 * only offers n8n's legacy request helper, so this adapts it to the transport's `send` and applies Basic auth.
 * It never retries: repeated bad logins lock the account.
 */
export async function svcApiCredentialTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const credentials = (credential.data ?? {}) as unknown as SvcCredentials;
	const send: SvcSend = async (request) => {
		// The credential test context offers only n8n's legacy request helper; httpRequest does not exist here.
		// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
		const response = (await this.helpers.request({
			method: request.method,
			uri: request.url,
			qs: request.qs,
			auth: { user: credentials.email, pass: credentials.password },
			json: false,
			resolveWithFullResponse: true,
			simple: false,
			timeout: request.timeout,
			rejectUnauthorized: !request.skipSslCertificateValidation,
			followRedirect: request.disableFollowRedirect !== true,
		})) as { statusCode: number; headers: IDataObject; body: unknown };
		return { statusCode: response.statusCode, headers: response.headers, body: response.body };
	};
	const outcome = await sendSvcRequest(send, credentials, 'GET', 'departments', { retry: { maxRetries: 0, timeoutMs: 15_000 } });
	if (outcome.ok) return { status: 'OK', message: 'Connection successful' };
	const { message, fix } = outcome.failure.text;
	return { status: 'Error', message: `${message}${/[.!?]$/.test(message) ? '' : '.'} ${fix}` };
}
