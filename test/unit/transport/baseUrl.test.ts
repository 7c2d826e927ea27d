// Base-URL normalisation: the accepted host forms, and every refusal (plain http to a network host before any request).
import http from 'node:http';
import nock from 'nock';

import { normalizeBaseUrl } from '../../../nodes/SvcChat/transport/baseUrl';
import { svcRequest } from '../../../nodes/SvcChat/transport/request';
import { testCredentials } from '../../harness/contexts';
import { listenLocally, rejectionOf, transportContext } from './support';
import { dropUnrequestedMocks } from '../../harness/nockSetup';

describe('normalizeBaseUrl accepts', () => {
	test.each([
		['a bare host', 'acme.svc.example', 'https://acme.svc.example'],
		['host:port', 'acme.svc.example:8443', 'https://acme.svc.example:8443'],
		['https://host', 'https://acme.svc.example', 'https://acme.svc.example'],
		['trailing slashes', 'https://acme.svc.example///', 'https://acme.svc.example'],
		['a bare host with a trailing slash', 'acme.svc.example/', 'https://acme.svc.example'],
		[
			'a path, query and fragment',
			'https://acme.svc.example/api/v2/departments?x=1#top',
			'https://acme.svc.example',
		],
		['surrounding spaces', '  acme.svc.example  ', 'https://acme.svc.example'],
		['uppercase host and scheme', 'HTTPS://ACME.Svc.Example', 'https://acme.svc.example'],
		['the default https port', 'acme.svc.example:443', 'https://acme.svc.example'],
		['an IPv6 loopback host:port', '[::1]:8443', 'https://[::1]:8443'],
		['an IP address', '203.0.113.7', 'https://203.0.113.7'],
		['http:// to 127.0.0.1 with a port', 'http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
		['http:// to anywhere in 127.0.0.0/8', 'http://127.12.0.9/', 'http://127.12.0.9'],
		['http:// to localhost in uppercase', 'HTTP://LOCALHOST:3000/', 'http://localhost:3000'],
		['http:// to the IPv6 loopback', 'http://[::1]:3000', 'http://[::1]:3000'],
	])('%s', (_case, typed, baseUrl) => {
		expect(normalizeBaseUrl(typed)).toEqual({ baseUrl });
	});
});

describe('normalizeBaseUrl refuses', () => {
	test.each([
		[
			'plain http to a named host',
			'http://acme.svc.example',
			/^Plain http:\/\/ is refused for "acme\.svc\.example": the password would cross the network unencrypted/,
		],
		[
			'plain http to a private address',
			'http://10.0.0.1:8080',
			/^Plain http:\/\/ is refused for "10\.0\.0\.1:8080"/,
		],
		[
			'plain http to a look-alike of localhost',
			'http://localhost.attacker.example',
			/^Plain http:\/\/ is refused/,
		],
		[
			'plain http to a look-alike of 127.0.0.1',
			'http://127.0.0.1.attacker.example',
			/^Plain http:\/\/ is refused/,
		],
		['an empty host', '', /^The host is empty\./],
		['a host of spaces', '   ', /^The host is empty\./],
		['a host that is not text', undefined, /^The host is empty\./],
		[
			'the ftp scheme',
			'ftp://acme.svc.example',
			/^The host "ftp:\/\/acme\.svc\.example" has an unsupported scheme "ftp:"\. Use https:\/\/\.$/,
		],
		['the file scheme', 'file:///etc/passwd', /unsupported scheme "file:"/],
		['the ws scheme', 'ws://acme.svc.example', /unsupported scheme "ws:"/],
		[
			'a scheme without slashes',
			'javascript:alert(1)',
			/^The host "javascript:alert\(1\)" is not a valid host name/,
		],
		['a mistyped scheme', 'https:/acme.svc.example', /is not a valid host name/],
		['a scheme and nothing else', 'https://', /is not a valid host name/],
		['a space inside the host', 'acme svc.example', /is not a valid host name/],
	])('%s', (_case, typed, problem) => {
		const result = normalizeBaseUrl(typed);
		expect(result.baseUrl).toBeUndefined();
		expect(result.problem).toMatch(problem);
	});

	test.each([
		['user and password before a bare host', 'admin:S3cret-typed@acme.svc.example'],
		['user and password after https://', 'https://admin:S3cret-typed@acme.svc.example'],
		['a user name only', 'https://admin@acme.svc.example'],
		['user info and an invalid host', 'admin:S3cret-typed@acme svc'],
		['user info with another scheme', 'ftp://admin:S3cret-typed@acme.svc.example'],
	])('userinfo in the host: %s, without echoing it', (_case, typed) => {
		const { problem } = normalizeBaseUrl(typed);
		expect(problem).toBe(
			'The host must not contain a user name or password. Put them in the e-mail and password fields.',
		);
		expect(problem).not.toContain('S3cret-typed');
	});
});

test.each([
	['localhost', true],
	['LOCALHOST', true],
	['127.0.0.1', true],
	['127.255.255.254', true],
	['::1', true],
	['[::1]', true],
	['localhost.example', false],
	['127.0.0.1.example', false],
	['128.0.0.1', false],
	['10.0.0.1', false],
	['::2', false],
])('plain http:// to %s is accepted: %s (loopback only)', (hostname, loopback) => {
	const host = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
	const { baseUrl, problem } = normalizeBaseUrl(`http://${host}`);
	expect(baseUrl).toBe(loopback ? `http://${host.toLowerCase()}` : undefined);
	if (!loopback) expect(problem).toMatch(/^Plain http:\/\/ is refused for /);
});

describe('through svcRequest', () => {
	test('plain http to a network host is refused before any request is sent', async () => {
		const scope = nock('http://acme.svc.example').get('/api/v2/departments').reply(200, []);
		const context = transportContext(testCredentials('http://acme.svc.example'));

		const error = await rejectionOf(svcRequest(context, 'departments'));

		expect(error.message).toMatch(/^Plain http:\/\/ is refused for "acme\.svc\.example"/);
		expect(error.description).toBe('Correct the host in the Svc API credentials.');
		expect(error.context.svcError).toBe('invalid-host');
		expect(context.helpers.httpRequestWithAuthentication).not.toHaveBeenCalled();
		expect(scope.isDone()).toBe(false);
		dropUnrequestedMocks();
	});

	test('a bare host is called over https at /api/v2/{path}', async () => {
		const scope = nock('https://acme.svc.example:8443').get('/api/v2/departments').reply(200, []);
		const context = transportContext(testCredentials('ACME.svc.example:8443/'));

		await expect(svcRequest(context, 'departments')).resolves.toEqual([]);
		expect(scope.isDone()).toBe(true);
	});

	test('plain http to loopback reaches a local server', async () => {
		const paths: string[] = [];
		const server = await listenLocally(
			http.createServer((request, response) => {
				paths.push(String(request.url));
				response.setHeader('Content-Type', 'application/json');
				response.end('[{"id":1,"name":"Sales","order":1}]');
			}),
		);
		try {
			const context = transportContext(testCredentials(`http://${server.hostPort}/`));
			await expect(svcRequest(context, 'departments')).resolves.toEqual([
				{ id: 1, name: 'Sales', order: 1 },
			]);
			expect(paths).toEqual(['/api/v2/departments']);
		} finally {
			await server.close();
		}
	});
});
