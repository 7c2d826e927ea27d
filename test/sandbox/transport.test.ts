// The sandbox through the project's own transport and n8n-core's real request stack: `host` is what works in the credentials.
import { startSandbox, type Sandbox } from '../../sandbox';
import { svcRequest, type SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { instantPauses } from '../harness/fixtures';
import { rejectionOf, transportContext } from '../unit/transport/support';

function credentialsFor(sandbox: Sandbox, overrides: Partial<SvcCredentials> = {}): SvcCredentials {
	return {
		host: sandbox.host,
		email: sandbox.admin.email,
		password: sandbox.admin.password,
		ignoreSslIssues: false,
		...overrides,
	};
}

/** GET departments through svcRequest on n8n-core's real request stack. */
async function departments(credentials: SvcCredentials) {
	instantPauses({ maxRetries: 0 });
	return await svcRequest(transportContext(credentials), 'departments');
}

describe.each([false, true])('https %s', (useHttps) => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ https: useHttps, chats: 2 });
	});
	afterAll(async () => await sandbox.stop());

	test('the host and admin from startSandbox work as credentials', async () => {
		const reply = await departments(credentialsFor(sandbox, { ignoreSslIssues: useHttps }));
		expect(reply).toEqual([
			expect.objectContaining({ id: 1 }),
			expect.objectContaining({ id: 2 }),
			expect.objectContaining({ id: 3 }),
		]);
	});

	test('a wrong password is reported as such', async () => {
		const error = await rejectionOf(
			departments(credentialsFor(sandbox, { ignoreSslIssues: useHttps, password: 'wrong' })),
		);
		expect(error.httpCode).toBe('401');
	});

	if (useHttps) {
		test('without "Ignore SSL Issues" the self-signed certificate is refused', async () => {
			const error = await rejectionOf(departments(credentialsFor(sandbox)));
			expect(`${error.message} ${error.description} ${JSON.stringify(error.context)}`).toMatch(
				/SELF_SIGNED|certificate/i,
			);
		});
	}
});
