// The sandbox through the project's own transport and n8n-core's real request stack: `host` is what works in the credentials.
import { startSandbox, type Sandbox } from '../../sandbox';
import {
	sendToEndpoint,
	type SvcCredentials,
	type SvcHttpResponse,
} from '../../nodes/SvcChat/transport/request';
import { ENDPOINTS } from '../../nodes/SvcChat/transport/endpoints';
import { n8nHttpRequestWithAuthentication } from '../harness/n8nRequest';
import { instantPauses } from '../harness/fixtures';
import type { INode } from 'n8n-workflow';

const node: INode = {
	id: 'n',
	name: 'Svc Chat',
	type: 'n8n-nodes-svc.svcChat',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function credentialsFor(sandbox: Sandbox, overrides: Partial<SvcCredentials> = {}): SvcCredentials {
	return {
		host: sandbox.host,
		email: sandbox.admin.email,
		password: sandbox.admin.password,
		ignoreSslIssues: false,
		...overrides,
	};
}

async function departments(credentials: SvcCredentials) {
	instantPauses({ maxRetries: 0 });
	return await sendToEndpoint(
		async (request) => (await n8nHttpRequestWithAuthentication(node, request)) as SvcHttpResponse,
		credentials,
		ENDPOINTS.departments,
	);
}

describe.each([false, true])('https %s', (useHttps) => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ https: useHttps, chats: 2 });
	});
	afterAll(async () => await sandbox.stop());

	test('the host and admin from startSandbox work as credentials', async () => {
		const outcome = await departments(credentialsFor(sandbox, { ignoreSslIssues: useHttps }));
		expect(outcome).toEqual({
			ok: true,
			reply: [
				expect.objectContaining({ id: 1 }),
				expect.objectContaining({ id: 2 }),
				expect.objectContaining({ id: 3 }),
			],
		});
	});

	test('a wrong password is reported as such', async () => {
		const outcome = await departments(
			credentialsFor(sandbox, { ignoreSslIssues: useHttps, password: 'wrong' }),
		);
		expect(outcome).toMatchObject({ ok: false, failure: { httpCode: 401 } });
	});

	if (useHttps) {
		test('without "Ignore SSL Issues" the self-signed certificate is refused', async () => {
			const outcome = await departments(credentialsFor(sandbox));
			expect(outcome.ok).toBe(false);
			expect(JSON.stringify(outcome)).toMatch(/SELF_SIGNED|certificate/i);
		});
	}
});
