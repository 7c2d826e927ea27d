// Issue 57 on a real n8n: the demo's published triggers on "Svc sandbox", a wrong password saved and the form opened again.
import type { Sandbox } from '../../sandbox';
import { firstPoll, pollingCopies, readExamples, sandboxCredential } from '../../scripts/examples';
import type { N8n, Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import { TEST_TIMEOUT_MS } from './environment';

/**
 * The demo's triggers as `npm start -- --headless` publishes them (examples 7 to 10, every 3 s) on "Svc sandbox", then
 * a wrong password saved and the credential's form opened again (the editor tests the credential at each): one wrong
 * login per test, then the account's pause holds every published trigger, and the sandbox never locks the e-mail. The
 * caller's n8n and sandbox are read when the set-up runs; it publishes the triggers, so it goes last in its file.
 */
export function testWrongPasswordInDemo(env: { readonly n8n: N8n; readonly sandbox: Sandbox }) {
	/** The right credential, accepting the sandbox's own certificate when it serves HTTPS. */
	const rightCredential = () => {
		const credential = sandboxCredential(env.sandbox);
		const ignoreSslIssues = env.sandbox.url.startsWith('https:');
		return { ...credential, data: { ...credential.data, ignoreSslIssues } };
	};

	beforeAll(async () => {
		const copies = Object.values(pollingCopies(readExamples()));
		await env.n8n.importCredentials([rightCredential()]);
		await env.n8n.importWorkflows(copies);
		await env.n8n.publishWorkflows(copies.map(({ id }) => id));
		for (const copy of copies) await firstPoll(env.n8n, copy);
	}, TEST_TIMEOUT_MS);

	test(
		'a wrong password saved in the demo and its form opened again never locks the sandbox; the right one brings it back',
		async () => {
			const rest = await env.n8n.rest();
			const { admin } = env.sandbox;
			const active = ((await rest('GET', 'workflows')) as unknown as Workflow[]).filter(
				(workflow) => workflow.active,
			);
			const published = [];
			for (const { id } of active) {
				const workflow = (await rest('GET', `workflows/${id}`)) as unknown as Workflow;
				if (workflow.nodes.some(({ type }) => type === 'n8n-nodes-svc.svcChatTrigger'))
					published.push(workflow);
			}
			expect(published.length).toBeGreaterThanOrEqual(3);
			const worst = { failures: 0, locked: false };
			const failures = () => {
				const now = env.sandbox.control.failedLogins(admin.email);
				worst.failures = Math.max(worst.failures, now.failures);
				worst.locked ||= now.locked;
				return now.failures;
			};
			expect(failures()).toBe(0);
			const saved = rightCredential();
			const wrong = { ...saved, data: { ...saved.data, password: 'Not-the-password-57' } };
			const [stored] = await env.n8n.importCredentials([wrong]); // Save…
			const testInForm = async () =>
				(await rest('POST', 'credentials/test', {
					credentials: { ...stored, type: 'svcApi', data: wrong.data },
				})) as unknown as { status: string; message: string };
			expect(await testInForm()).toMatchObject({ status: 'Error' }); // …which tests it,
			expect(await testInForm()).toMatchObject({ status: 'Error' }); // and the form opened again.
			// Four polls of the 3-second copies, all on this credential: an absence is only seen over time.
			const counted = failures();
			const until = Date.now() + 4 * 3_000;
			await waitUntil(async () => (failures(), Date.now() >= until), {
				what: 'four polls of the published examples',
				timeoutMs: 30_000,
				everyMs: 250,
			});
			expect(failures()).toBe(counted);
			expect(counted).toBeLessThanOrEqual(3); // the two tests, and at most one request already on its way
			expect(worst).toEqual({ failures: counted, locked: false });
			// The right password saved: the triggers poll again at once (a new password is tried at once), never refused.
			const logFrom = env.sandbox.control.requestLog().length;
			await env.n8n.importCredentials([saved]);
			await waitUntil(
				async () =>
					env.sandbox.control
						.requestLog()
						.slice(logFrom)
						.some((entry) => entry.path === '/api/v2/chats' && entry.status === 200),
				{ what: 'a poll with the right password', timeoutMs: 30_000, everyMs: 250 },
			);
			expect(failures()).toBe(counted);
			expect(worst.locked).toBe(false);
		},
		TEST_TIMEOUT_MS,
	);
}
