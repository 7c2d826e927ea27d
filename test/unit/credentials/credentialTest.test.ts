// The Svc API credential type: its fields, its declarative test, and what keeps the password with the Svc nodes.
// The test's behaviour in n8n itself (one request, each message, nothing sent for a refused host) is proven by
// test/e2e/credential.test.ts, which clicks "Test" the way the editor does.
import { NodeHelpers, type INodeProperties } from 'n8n-workflow';

import { SvcApi } from '../../../credentials/SvcApi.credentials';
import { SVC_ERROR_CODES, SVC_HTTP_ERRORS } from '../../../nodes/SvcChat/transport/errors';
import { normalizeBaseUrl } from '../../../nodes/SvcChat/transport/baseUrl';

const credentialType = new SvcApi();
const byName = Object.fromEntries(
	credentialType.properties.map((property) => [property.name, property]),
) as Record<string, INodeProperties>;

/** Evaluates the test's URL expression as plain JavaScript with `$credentials`, the way n8n's engine would. */
function testUrlFor(host: string): string {
	const expression = String(credentialType.test.request.url);
	expect(expression).toMatch(/^=\{\{[\s\S]*\}\}$/);
	const body = expression.slice(3, -2);
	return new Function('$credentials', `return ${body}`)({ host }) as string;
}

const refusal = (host: string) => {
	try {
		testUrlFor(host);
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error(`"${host}" was not refused`);
};

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

describe('the credential test request', () => {
	const { request, rules } = credentialType.test;

	test('GET /api/v2/partner/tariffs (its reply is always an object) with Basic auth, no redirects, a bounded time', () => {
		expect(request).toMatchObject({
			method: 'GET',
			auth: { username: '={{$credentials.email}}', password: '={{$credentials.password}}' },
			json: true,
			skipSslCertificateValidation: '={{$credentials.ignoreSslIssues === true}}',
			disableFollowRedirect: true,
			timeout: 15_000,
		});
	});

	test.each([
		['acme.svc.example', 'https://acme.svc.example/api/v2/partner/tariffs'],
		[' https://acme.svc.example/some/path?x=1 ', 'https://acme.svc.example/api/v2/partner/tariffs'],
		['acme.svc.example:8443', 'https://acme.svc.example:8443/api/v2/partner/tariffs'],
		['http://127.0.0.1:3000', 'http://127.0.0.1:3000/api/v2/partner/tariffs'],
		['HTTP://localhost/', 'http://localhost/api/v2/partner/tariffs'],
		['http://[::1]:8080', 'http://[::1]:8080/api/v2/partner/tariffs'],
	])('host %j is asked at %s', (host, url) => {
		expect(testUrlFor(host)).toBe(url);
	});

	test.each([
		['http://acme.svc.example/', /^Plain http:\/\/ is refused for "acme.svc.example"/],
		['http://localhost.:80', /^Plain http:\/\/ is refused for "localhost.:80"/],
		['admin:secret@acme.svc.example', /^The host must not contain a user name or password/],
		['Pw-pasted-here acme', /^The host is not a valid host name/],
		['ftp://acme.svc.example', /unsupported scheme/],
	])('host %j is refused before any request', (host, message) => {
		expect(refusal(host)).toMatch(message);
		expect(refusal(host)).toMatch(/Correct the host in the Svc API credentials\.$/);
	});

	test('a refusal never repeats what was typed when it is not a host name (it may be a password)', () => {
		expect(refusal('Pw-pasted-here acme')).not.toContain('Pw-pasted-here');
		expect(refusal('admin:secret@acme.svc.example')).not.toContain('secret');
	});

	const byStatus = Object.fromEntries(
		(rules ?? [])
			.filter((rule) => rule.type === 'responseCode')
			.map((rule) => [String(rule.properties.value), rule.properties.message]),
	);

	/** What the form says for a text the nodes show: the user is in the credential, so it is not pointed at. */
	const inTheForm = ({ message, fix }: { message: string; fix: string }) =>
		`${message}. ${fix}`.replace(' in the Svc API credentials', '');

	test('every status the transport explains has its rule, with the text the nodes show, without pointing at the form', () => {
		for (const [status, text] of Object.entries(SVC_HTTP_ERRORS))
			if (status !== '401') expect(byStatus[status]).toBe(inTheForm(text));
		expect(byStatus['404']).toBe(
			'The server has no such API endpoint. Check the host: it must be the chat server (your account sub-domain or your own host).',
		);
		for (const status of ['301', '302', '303', '307', '308'])
			expect(byStatus[status]).toMatch(/^The server redirects the request elsewhere/);
		for (const message of Object.values(byStatus)) expect(message).not.toContain(' in the Svc API');
	});

	// README "Credentials", docs/reliability.md: n8n's test sends a request answered 401 a second time, so "the node does not retry" would be
	// false there; the form is the credentials, so "in the Svc API credentials" points at where the user already is.
	test('a wrong password: one text, true for the nodes and for the test, in the form without pointing at itself', () => {
		expect(SVC_HTTP_ERRORS[401]).toEqual({
			message: 'Wrong email or password',
			fix: 'Check the admin email and password in the Svc API credentials. The server blocks logins after too many wrong attempts, so correct them before running or testing again. Published workflows whose Svc Chat Trigger uses this credential pause their polls after a failed login.',
		});
		expect(byStatus['401']).toBe(
			'Wrong email or password. Check the admin email and password. The server blocks logins after too many wrong attempts, so correct them before running or testing again. Published workflows whose Svc Chat Trigger uses this credential pause their polls after a failed login.',
		);
		for (const text of [byStatus['401'], SVC_HTTP_ERRORS[401].fix])
			expect(text).not.toMatch(/retr(y|ies)|not locked|once/i);
	});

	test("every other error status has our text too, never the server's reason phrase (it could echo the password)", () => {
		for (let status = 400; status < 600; status++)
			expect([status, typeof byStatus[String(status)]]).toEqual([status, 'string']);
		expect(byStatus['418']).toBe(
			'The server answered with HTTP 418. Check the host, then try again later.',
		);
	});

	test('"no-tariff-option" and "unauthorized" in a 200 reply have their own messages', () => {
		const bodyRules = (rules ?? []).filter((rule) => rule.type === 'responseSuccessBody');
		expect(bodyRules.map((rule) => rule.properties)).toEqual([
			{
				key: 'error',
				value: 'no-tariff-option',
				message: inTheForm(SVC_ERROR_CODES['no-tariff-option']),
			},
			// A 200 reply is not asked again: the form's plain text.
			{
				key: 'error',
				value: 'unauthorized',
				message: 'Wrong email or password. Check the admin email and password.',
			},
		]);
	});

	test('the messages for a wrong login, a refused user and API access not enabled all differ', () => {
		const noApiAccess = (rules ?? []).find((rule) => rule.type === 'responseSuccessBody')
			?.properties.message;
		expect(new Set([byStatus['401'], byStatus['403'], noApiAccess]).size).toBe(3);
	});
});

describe('the nodes', () => {
	test("declare the credential without a credentialTest method of their own (n8n uses the type's test)", async () => {
		const { SvcChat } = await import('../../../nodes/SvcChat/SvcChat.node');
		const { SvcChatTrigger } = await import('../../../nodes/SvcChat/SvcChatTrigger.node');
		for (const node of [new SvcChat(), new SvcChatTrigger()]) {
			expect(node.description.credentials).toEqual([{ name: 'svcApi', required: true }]);
			expect(
				(node as { methods?: { credentialTest?: unknown } }).methods?.credentialTest,
			).toBeUndefined();
		}
	});
});
