// The Svc API credentials and their test: each failure the user can cause gets its own clear message.
import https from 'node:https';
import nock from 'nock';
import { generate } from 'selfsigned';
import type { ICredentialsDecrypted } from 'n8n-workflow';

import { SvcApi } from '../../../credentials/SvcApi.credentials';
import { svcApiCredentialTest } from '../../../nodes/SvcChat/transport/credentialTest';
import type { SvcCredentials } from '../../../nodes/SvcChat/transport';
import { createCredentialTestContext, TEST_PASSWORD, testCredentials } from '../../harness/contexts';
import { closedPort, EMAIL, HOST, listenLocally, ORIGIN, type LocalServer } from '../transport/support';

const MESSAGES = {
	ok: 'Connection successful',
	wrongLogin:
		'Wrong email or password. Check the admin email and password in the Svc API credentials. The node does not retry, so the account is not locked by repeated attempts.',
	forbidden:
		'Access denied: the user is not an administrator, or there were too many login attempts. Use the email and password of an administrator operator. If they are right, wait a while before the next attempt: the server blocks logins after too many attempts.',
	noApiAccess:
		'API access is not enabled for this account. Ask Svc technical support to enable Integration API access for your account, then test the credentials again. (Svc code: no-tariff-option)',
	unreachable: (hostPort: string) =>
		`Host "${hostPort}" refused the connection. Check the host and port in the Svc API credentials, and that the chat server is running.`,
	plainHttp:
		'Plain http:// is refused for "acme.svc.example": the password would cross the network unencrypted. Use https:// (or just the host name). Correct the host in the Svc API credentials.',
	untrustedCertificate: (hostPort: string) =>
		`The TLS certificate of "${hostPort}" is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT). Renew or correct the certificate on the server, or turn on 'Ignore SSL Issues' in the credentials if you trust this host.`,
};

function runCredentialTest(credentials: SvcCredentials) {
	const context = createCredentialTestContext();
	const decrypted: ICredentialsDecrypted = { id: 'cred-1', name: 'Svc account', type: 'svcApi', data: credentials as never };
	return { context, result: svcApiCredentialTest.call(context, decrypted) };
}

/** Serves GET /departments once with Basic auth checked, and counts requests. */
function departments(status: number, body: string) {
	const seen = { requests: 0 };
	nock(ORIGIN)
		.get('/api/v2/departments')
		.basicAuth({ user: EMAIL, pass: TEST_PASSWORD })
		.times(5)
		.reply(() => {
			seen.requests++;
			return [status, body];
		});
	return seen;
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe('the credential test', () => {
	test('OK on 200: GET /api/v2/departments with Basic auth', async () => {
		const seen = departments(200, '[{"id":1,"name":"Sales","order":1}]');
		const result = await runCredentialTest(testCredentials(HOST)).result;
		expect(result).toEqual({ status: 'OK', message: MESSAGES.ok });
		expect(seen.requests).toBe(1);
	});

	test('401: wrong e-mail or password, asked once only', async () => {
		const seen = departments(401, '');
		const result = await runCredentialTest(testCredentials(HOST)).result;
		expect(result).toEqual({ status: 'Error', message: MESSAGES.wrongLogin });
		expect(seen.requests).toBe(1);
	});

	test('403: not an administrator, or too many attempts, asked once only', async () => {
		const seen = departments(403, '<html>Forbidden</html>');
		const result = await runCredentialTest(testCredentials(HOST)).result;
		expect(result).toEqual({ status: 'Error', message: MESSAGES.forbidden });
		expect(seen.requests).toBe(1);
	});

	test('no-tariff-option: API access not enabled', async () => {
		departments(200, '{"error":"no-tariff-option"}');
		const result = await runCredentialTest(testCredentials(HOST)).result;
		expect(result).toEqual({ status: 'Error', message: MESSAGES.noApiAccess });
	});

	test('a 502 is not retried either: the test answers quickly', async () => {
		const seen = departments(502, '');
		const result = await runCredentialTest(testCredentials(HOST)).result;
		expect(result).toEqual({
			status: 'Error',
			message: 'The server cannot process the request (502). Try again later. If it persists, contact Svc support with the time of the request.',
		});
		expect(seen.requests).toBe(1);
	});

	test('host unreachable: a closed port on 127.0.0.1', async () => {
		nock.enableNetConnect('127.0.0.1');
		try {
			const port = await closedPort();
			const result = await runCredentialTest(testCredentials(`http://127.0.0.1:${port}`)).result;
			expect(result).toEqual({ status: 'Error', message: MESSAGES.unreachable(`127.0.0.1:${port}`) });
		} finally {
			nock.disableNetConnect();
		}
	});

	test('plain http:// to a non-loopback host is refused with no request sent', async () => {
		const scope = nock('http://acme.svc.example').get('/api/v2/departments').reply(200, []);
		const run = runCredentialTest(testCredentials('http://acme.svc.example/'));
		const result = await run.result;
		expect(result).toEqual({ status: 'Error', message: MESSAGES.plainHttp });
		expect(run.context.helpers.request).not.toHaveBeenCalled();
		expect(scope.isDone()).toBe(false);
	});

	describe('a self-signed HTTPS server', () => {
		let server: LocalServer;
		const authorizations: string[] = [];

		beforeAll(async () => {
			nock.enableNetConnect('127.0.0.1');
			const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
				keySize: 2048,
				extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
			});
			server = await listenLocally(
				https.createServer({ key: pems.private, cert: pems.cert }, (request, response) => {
					authorizations.push(String(request.headers.authorization));
					response.setHeader('Content-Type', 'application/json');
					response.end('[]');
				}),
			);
		});
		afterAll(async () => {
			await server.close();
			nock.disableNetConnect();
		});

		test('fails without "Ignore SSL Issues", before any credentials are sent', async () => {
			const result = await runCredentialTest(testCredentials(server.hostPort)).result;
			expect(result).toEqual({ status: 'Error', message: MESSAGES.untrustedCertificate(server.hostPort) });
			expect(authorizations).toEqual([]);
		});

		test('passes with "Ignore SSL Issues"', async () => {
			const result = await runCredentialTest(testCredentials(`https://${server.hostPort}`, { ignoreSslIssues: true })).result;
			expect(result).toEqual({ status: 'OK', message: MESSAGES.ok });
			expect(authorizations).toEqual([`Basic ${Buffer.from(`${EMAIL}:${TEST_PASSWORD}`).toString('base64')}`]);
		});
	});

	test('every case above has its own message', () => {
		const messages = Object.values(MESSAGES).map((message) => (typeof message === 'function' ? message('127.0.0.1:1') : message));
		expect(new Set(messages).size).toBe(messages.length);
	});
});

describe('the credential type', () => {
	const credentialType = new SvcApi();

	test('is "svcApi", shown as "Svc API", with host, e-mail, masked password and Ignore SSL Issues (off)', () => {
		expect(credentialType.name).toBe('svcApi');
		expect(credentialType.displayName).toBe('Svc API');
		const byName = Object.fromEntries(credentialType.properties.map((property) => [property.name, property]));
		expect(Object.keys(byName)).toEqual(['host', 'email', 'password', 'ignoreSslIssues']);
		expect(byName.password.typeOptions?.password).toBe(true);
		expect(byName.host.required && byName.email.required && byName.password.required).toBe(true);
		expect(byName.ignoreSslIssues).toMatchObject({ type: 'boolean', default: false });
	});

	test('authenticates with HTTP Basic through the generic authenticate block', () => {
		expect(credentialType.authenticate).toEqual({
			type: 'generic',
			properties: { auth: { username: '={{$credentials.email}}', password: '={{$credentials.password}}' } },
		});
	});

	test('is tested by svcApiCredentialTest, which the action node provides', async () => {
		// Loaded here, so that work in progress on the node's operations cannot break the other tests of this file.
		const { SvcChat } = await import('../../../nodes/SvcChat/SvcChat.node');
		const node = new SvcChat();
		expect(node.description.credentials).toContainEqual(
			expect.objectContaining({ name: 'svcApi', testedBy: 'svcApiCredentialTest' }),
		);
		expect(node.methods.credentialTest.svcApiCredentialTest).toBe(svcApiCredentialTest);
	});
});
