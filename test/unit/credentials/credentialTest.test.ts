// The Svc API credential type: its fields, its test (the Svc Chat node's credentialTest method), and what keeps the
// password with the Svc nodes. The test's behaviour in n8n itself (one request, each message, nothing sent for a refused
// host) is proven by test/e2e/credential.test.ts, which clicks "Test" the way the editor does.
import { OutboundHttp } from '@n8n/backend-network';
import { Container } from '@n8n/di';
import nock from 'nock';
import {
	NodeHelpers,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { SvcApi } from '../../../credentials/SvcApi.credentials';
import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { SVC_ERROR_CODES, SVC_HTTP_ERRORS } from '../../../nodes/SvcChat/transport/errors';
import { normalizeBaseUrl } from '../../../nodes/SvcChat/transport/baseUrl';
import { LoginPaused } from '../../../nodes/SvcChat/transport/loginGuard';
import { testSvcCredentials } from '../../../nodes/SvcChat/transport/request';
import { createExecuteContext, TEST_PASSWORD, testCredentials } from '../../harness/contexts';
import { BASE_URL, HOST } from '../../harness/fixtures';

const credentialType = new SvcApi();
const byName = Object.fromEntries(
	credentialType.properties.map((property) => [property.name, property]),
) as Record<string, INodeProperties>;

describe('the credential type', () => {
	test('is "svcApi", shown as "Svc API", with host, e-mail, masked password and Ignore SSL Issues (off)', () => {
		expect(credentialType.name).toBe('svcApi');
		expect(credentialType.displayName).toBe('Svc API');
		expect(Object.keys(byName)).toEqual([
			'host',
			'plainHttpNotice',
			'email',
			'password',
			'ignoreSslIssues',
		]);
		expect(byName.password.typeOptions?.password).toBe(true);
		expect(byName.host.required && byName.email.required && byName.password.required).toBe(true);
		expect(byName.ignoreSslIssues).toMatchObject({ type: 'boolean', default: false });
	});

	test('is restricted to the nodes that declare it, and has no authenticate block (no HTTP Request use, no Custom API Call)', () => {
		expect(credentialType.restrictToSupportedNodes).toBe(true);
		expect('authenticate' in credentialType).toBe(false);
		expect('httpRequestNode' in credentialType).toBe(false);
	});

	test('the form warns about plain http:// to any host but loopback as soon as it is typed, as the transport refuses it', () => {
		const shown = (host: string) =>
			NodeHelpers.displayParameter({ host }, byName.plainHttpNotice, null, null);
		const refused = (host: string) => /^Plain http:\/\//.test(normalizeBaseUrl(host).problem ?? '');
		// The common typings: the notice says what the transport does.
		for (const host of [
			'http://acme.svc.example',
			'HTTP://acme.svc.example/',
			'Http://acme.svc.example:80',
			'http://localhost.:80',
			'http://localhost.svc.example',
			'acme.svc.example',
			'https://acme.svc.example',
			'http://127.0.0.1:3000',
			'HTTP://127.0.0.1',
			'http://localhost',
			'Http://localhost/',
			'HTTP://localhost:5678',
			'http://[::1]:8080/',
		]) {
			expect([host, shown(host)]).toEqual([host, refused(host)]);
		}
		// What its prefix conditions miss (no regex, see the credential): no notice, but refused all the same.
		for (const host of [
			' HTTP://acme.svc.example/',
			'hTTp://acme.svc.example',
			'http://127.0.0.1.nip.example',
		]) {
			expect([host, shown(host), refused(host)]).toEqual([host, false, true]);
		}
	});
});

/** The options the test sent through n8n's legacy request helper (the only one a credential test has). */
let sent: IDataObject[] = [];
/** The test as n8n runs it: with n8n-core's real legacy request stack, or with `reply` instead of a network. */
async function credentialTest(
	data: IDataObject,
	reply?: (options: IDataObject) => { statusCode: number; body?: unknown },
) {
	const context = {
		helpers: {
			request: async (options: IDataObject) => {
				sent.push(options);
				if (reply) return reply(options);
				return await Container.get(OutboundHttp)
					.requests()
					.requestLegacy(options as never);
			},
		},
	} as unknown as ICredentialTestFunctions;
	const credentials = { id: '1', name: 'Svc', type: 'svcApi', data } as ICredentialsDecrypted;
	return await testSvcCredentials.call(context, credentials);
}
beforeEach(() => (sent = []));

const form = (host: string, extra: IDataObject = {}) => ({
	...testCredentials(host),
	...extra,
});

describe('the credential test', () => {
	test('GET /api/v2/partner/tariffs (its reply is always an object) with Basic auth, no redirects, a bounded time', async () => {
		expect(
			await credentialTest(form(HOST), () => ({ statusCode: 200, body: { tariffs: [] } })),
		).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(sent).toEqual([
			{
				uri: `${BASE_URL}/api/v2/partner/tariffs`,
				method: 'GET',
				auth: { user: 'admin@svc.test', pass: TEST_PASSWORD },
				json: true,
				followRedirect: false,
				followAllRedirects: false,
				rejectUnauthorized: true,
				timeout: 15_000,
				simple: false,
				resolveWithFullResponse: true,
			},
		]);
		await credentialTest(form(HOST, { ignoreSslIssues: true }), () => ({ statusCode: 200 }));
		expect(sent[1]).toMatchObject({ rejectUnauthorized: false });
	});

	test.each([
		['acme.svc.example', 'https://acme.svc.example/api/v2/partner/tariffs'],
		[' https://acme.svc.example/some/path?x=1 ', 'https://acme.svc.example/api/v2/partner/tariffs'],
		['acme.svc.example:8443', 'https://acme.svc.example:8443/api/v2/partner/tariffs'],
		['http://127.0.0.1:3000', 'http://127.0.0.1:3000/api/v2/partner/tariffs'],
		['HTTP://localhost/', 'http://localhost/api/v2/partner/tariffs'],
		['http://[::1]:8080', 'http://[::1]:8080/api/v2/partner/tariffs'],
	])('host %j is asked at %s', async (host, url) => {
		await credentialTest(form(host), () => ({ statusCode: 200, body: {} }));
		expect(sent.map((options) => options.uri)).toEqual([url]);
	});

	test.each([
		['http://acme.svc.example/', /^Plain http:\/\/ is refused for "acme.svc.example"/],
		['http://localhost.:8080', /^Plain http:\/\/ is refused for "localhost.:8080"/],
		['admin:secret@acme.svc.example', /^The host must not contain a user name or password/],
		['Pw-pasted-here acme', /^The host "Pw-pasted-here acme" is not a valid host name/],
		['ftp://acme.svc.example', /unsupported scheme/],
	])('host %j is refused before any request, saying why', async (host, message) => {
		const result = await credentialTest(form(host), () => ({ statusCode: 200 }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(message);
		expect(result.message).toMatch(/Correct the host\.$/);
		expect(sent).toEqual([]);
	});

	test('a refusal never repeats a password typed into the host', async () => {
		const result = await credentialTest(form(`${TEST_PASSWORD} acme`), () => ({ statusCode: 200 }));
		expect(result.message).not.toContain(TEST_PASSWORD);
		expect(sent).toEqual([]);
	});

	const messageFor = async (statusCode: number, body?: unknown) =>
		(await credentialTest(form(HOST), () => ({ statusCode, body }))).message;
	/** What the form says for a text the nodes show: the user is in the credential, so it is not pointed at. */
	const inTheForm = ({ message, fix }: { message: string; fix: string }) =>
		`${message}. ${fix}`.replace(' in the Svc API credentials', '');

	test('every status the transport explains has the text the nodes show, without pointing at the form', async () => {
		for (const [status, text] of Object.entries(SVC_HTTP_ERRORS))
			expect(await messageFor(Number(status))).toBe(inTheForm(text));
		expect(await messageFor(404)).toBe(
			'The server has no such API endpoint. Check the host: it must be the chat server (your account sub-domain or your own host).',
		);
		for (const status of [301, 302, 303, 307, 308])
			expect(await messageFor(status)).toMatch(/^The server redirects the request elsewhere/);
		expect(await messageFor(418)).toBe(
			'The server answered with HTTP 418. Check the host, then try again later.',
		);
	});

	test('a wrong password: the text the nodes show, in the form without pointing at itself', async () => {
		expect(await messageFor(401)).toBe(
			'Wrong email or password. Check the admin email and password. The server blocks logins after too many wrong attempts, so correct them before running or testing again. After a refused login, runs that no person started (published triggers, schedules, agents) pause their requests with this password; a corrected password tries again right away.',
		);
	});

	test('"no-tariff-option" and "unauthorized" in a 200 reply have their own messages', async () => {
		expect(await messageFor(200, { error: 'no-tariff-option' })).toBe(
			inTheForm(SVC_ERROR_CODES['no-tariff-option']),
		);
		expect(await messageFor(200, { error: 'unauthorized' })).toBe(
			'Wrong email or password. Check the admin email and password.',
		);
		const [wrong, refused, noApiAccess] = await Promise.all([
			messageFor(401),
			messageFor(403),
			messageFor(200, { error: 'no-tariff-option' }),
		]);
		expect(new Set([wrong, refused, noApiAccess]).size).toBe(3);
	});

	test("through n8n's real request stack: a 401 is asked once, a redirect is not followed, and the refusal counts for the account", async () => {
		let asked = 0;
		nock(BASE_URL)
			.get('/api/v2/partner/tariffs')
			.times(2)
			.reply(() => {
				asked++;
				return [401, 'Unauthorized'];
			});
		expect((await credentialTest(form(HOST))).message).toMatch(/^Wrong email or password/);
		expect(asked).toBe(1);
		// The account now pauses for runs no person started; the next test (a person) still tries.
		const node = new SvcChat();
		const scheduled = createExecuteContext({
			description: node.description,
			parameters: { resource: 'operator', operation: 'getMany', returnAll: true },
			credentials: testCredentials(HOST),
			mode: 'trigger',
		});
		await expect(node.execute.call(scheduled)).rejects.toBeInstanceOf(LoginPaused);
		expect((await credentialTest(form(HOST))).message).toMatch(/^Wrong email or password/);
		expect(asked).toBe(2);

		nock(BASE_URL)
			.get('/api/v2/partner/tariffs')
			.reply(302, '', { location: 'https://elsewhere.example/api/v2/partner/tariffs' });
		expect((await credentialTest(form(HOST, { password: 'Other-pw' }))).message).toMatch(
			/^The server redirects the request elsewhere/,
		);
	});

	test('an unreachable host says so', async () => {
		const result = await credentialTest(form('http://127.0.0.1:9'));
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/refused the connection|could not be reached/),
		});
	});
});

describe('the nodes', () => {
	test('both nodes test the credential with the one method (one login, through the guard), whichever n8n finds first', () => {
		const action = new SvcChat();
		expect(action.description.credentials).toEqual([
			{ name: 'svcApi', required: true, testedBy: 'testSvcCredentials' },
		]);
		expect(action.methods.credentialTest.testSvcCredentials).toBe(testSvcCredentials);
		const trigger = new SvcChatTrigger();
		expect(trigger.description.credentials).toEqual(action.description.credentials);
		expect(trigger.methods.credentialTest.testSvcCredentials).toBe(testSvcCredentials);
		expect('test' in new SvcApi()).toBe(false);
	});
});
