// A trigger moved from one Svc server to another starts again from its Start From, over real HTTP to two sandboxes.
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import { testCredentials, triggerUnderTest } from '../harness/contexts';

let testServer: Sandbox;
let production: Sandbox;
beforeAll(async () => {
	testServer = await startSandbox({ seed: 3, chats: 5 });
	production = await startSandbox({ seed: 4, chats: 12 });
});
afterAll(async () => {
	await testServer?.stop();
	await production?.stop();
});

/** One poll of a Beginning of History trigger against `sandbox`, sharing `staticData` as n8n does between polls. */
async function pollAgainst(sandbox: Sandbox, staticData: IDataObject) {
	const { trigger, context, logger } = triggerUnderTest({
		parameters: { startFrom: 'beginning', emit: 'everyChange', output: 'raw' },
		credentials: testCredentials(sandbox.host, sandbox.admin),
		staticData,
	});
	const result = await trigger.poll.call(context);
	return { ids: (result?.[0] ?? []).map((item) => String(item.json.id)).sort(), logger };
}

/** What the trigger stores of a sandbox's origin and admin: the SHA-256 of both, in hex, and neither in clear. */
const digestOf = (sandbox: Sandbox) =>
	createHash('sha256')
		.update(`http://127.0.0.1:${sandbox.port}\n${sandbox.admin.email}`)
		.digest('hex');

test("pointing the credential at another server emits that server's whole history, and the log says why", async () => {
	const staticData: IDataObject = {};
	const first = await pollAgainst(testServer, staticData);
	expect(first.ids).toHaveLength(5);
	expect(staticData.boundTo).toBe(digestOf(testServer));
	const testCursor = staticData.cursor;

	// Without the binding, production would be asked for changes since the test server's cursor, a recent moment:
	// production's history that last changed before that moment would be skipped. This is the loss the binding prevents.
	const unbound = await pollAgainst(production, {
		startedFrom: 'beginning',
		cursor: testCursor,
		catchingUp: false,
	});
	expect(unbound.ids.length).toBeLessThan(12);

	const moved = await pollAgainst(production, staticData);
	expect(moved.ids).toHaveLength(12);
	expect(production.control.requestLog().some((entry) => entry.query.since === '0')).toBe(true);
	expect(staticData.boundTo).toBe(digestOf(production));
	expect(moved.logger.warn).toHaveBeenCalledWith(
		`Svc Chat Trigger: the credential now points at another server or account than the saved position was read from (the server is now http://127.0.0.1:${production.port}); starting again from the Beginning of History`,
	);
	expect(JSON.stringify(staticData)).not.toMatch(/127\.0\.0\.1|@/);

	// From then on it is production's cursor: the next poll asks for what changed since, and gets nothing new.
	const again = await pollAgainst(production, staticData);
	expect(again.ids).toEqual([]);
	expect(again.logger.warn).not.toHaveBeenCalled();
});
