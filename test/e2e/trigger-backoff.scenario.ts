// A wrong password saved in a real n8n never locks the account (issue 52): published triggers of three events on one
// credential log in wrong once each, then pause; publishing again retries at once; the corrected password brings them
// back. Shared by 2.x and 1.x, on the n8n the trigger-events files already run.
import { pollEvery, sandboxCredential } from '../../scripts/examples';
import type { StoredExecution } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import {
	POLL_EVERY_SECONDS,
	POLL_WAIT_MS,
	QUIET_POLLS,
	runtimeFlavour,
	setPublished,
	sandboxCredentialOf,
	usePolls,
	type E2eEnvironment,
} from './environment';

const CREDENTIAL = { id: 'svcE2eBackOff01', name: 'Svc back-off e2e' };
/** Three events, each on the credential whose password the scenario breaks; the fourth trigger keeps time. */
const PAUSING = {
	'Every change': { emit: 'everyChange', output: 'raw' },
	'Missed chats': { emit: 'missedChat', chatOutput: 'raw' },
	'Operator status': { emit: 'operatorStatusChanged' },
};
const CLOCK = 'Clock (right password)';

export function testLoginBackOff(env: E2eEnvironment): void {
	describe(`a wrong password never locks the account: published triggers pause (${runtimeFlavour().name})`, () => {
		const ids: Record<string, string> = {};
		/** The most failed logins the sandbox counted for the admin at any look, and whether it ever locked it out. */
		const worst = { failures: 0, locked: false };
		const failedLogins = () => {
			const now = env.sandbox.control.failedLogins(env.sandbox.admin.email);
			worst.failures = Math.max(worst.failures, now.failures);
			worst.locked ||= now.locked;
			return now.failures;
		};
		const setPassword = async (password: string) => {
			const { data, ...credential } = sandboxCredential(env.sandbox, CREDENTIAL);
			await env.n8n.importCredentials([{ ...credential, data: { ...data, password } }]);
		};
		// Only the clock trigger reads GET /operators while the others pause: its polls mark the time that passes.
		const clock = usePolls(env, '/api/v2/operators', () => 1);

		/** The runs of a workflow: the node's refused logins (what they said) and its good executions. */
		async function runsOf(name: string) {
			const all = await env.n8n.readExecutions(ids[name], { all: true });
			const said = (execution: StoredExecution) => execution.data.resultData.error;
			const refused = all.filter((one) => said(one)?.message === 'Wrong email or password');
			return {
				refused: refused.map((one) => String(said(one)?.description)),
				succeeded: all.filter(({ status }) => status === 'success').length,
			};
		}

		const waitFor = async (what: string, fact: () => Promise<boolean> | boolean) =>
			await waitUntil(async () => await fact(), {
				what,
				timeoutMs: POLL_WAIT_MS,
				everyMs: 250,
				output: () => env.n8n.serverOutput.slice(-3_000),
			});

		beforeAll(async () => {
			const [backOff] = await env.n8n.importCredentials([
				sandboxCredential(env.sandbox, CREDENTIAL),
			]);
			const rest = await env.n8n.rest();
			const triggers = [
				...Object.entries(PAUSING).map(([name, parameters]) => ({
					name,
					parameters,
					credentials: { svcApi: backOff },
				})),
				{
					name: CLOCK,
					parameters: { emit: 'operatorAvailabilityChanged' },
					credentials: await sandboxCredentialOf(env.n8n),
				},
			];
			for (const [index, { name, parameters, credentials }] of triggers.entries()) {
				const workflow: Omit<Workflow, 'id'> = {
					name: `Back-off e2e: ${name}`,
					nodes: [
						{
							id: `e2e52000-0000-4000-8000-00000000000${index}`,
							name,
							type: 'n8n-nodes-svc.svcChatTrigger',
							typeVersion: 1,
							position: [0, 0],
							parameters: { pollTimes: pollEvery(POLL_EVERY_SECONDS), ...parameters },
							credentials,
						},
					],
					connections: {},
					settings: { executionOrder: 'v1' },
					active: false,
				};
				ids[name] = String((await rest('POST', 'workflows', workflow)).id);
			}
			await env.n8n.publishWorkflows(Object.values(ids));
			// Each has polled once, with the right password: the chat events found the server's present.
			await waitFor('the first good poll of each trigger', async () => {
				const states = await Promise.all(
					triggers.map(async ({ name }) => (await env.n8n.staticData(ids[name]))?.[`node:${name}`]),
				);
				return states.every((state) => state && state.catchingUp !== true);
			});
			expect(failedLogins()).toBe(0);
		});
		afterAll(async () => {
			for (const id of Object.values(ids)) await setPublished(env, id, false);
		});

		test('a wrong password saved: each trigger logs in wrong once, says when it tries again, then makes no request', async () => {
			await setPassword('Wrong-pw-e2e-52');
			await waitFor('a refused login of each trigger', async () =>
				(await Promise.all(Object.keys(PAUSING).map(runsOf))).every(
					(runs) => runs.refused.length === 1,
				),
			);
			expect(failedLogins()).toBe(3);
			// The clock trigger polls on; the paused ones send nothing and start no execution.
			await clock.after(QUIET_POLLS + 2);
			expect(failedLogins()).toBe(3);
			for (const name of Object.keys(PAUSING)) {
				const { refused } = await runsOf(name);
				expect(refused).toHaveLength(1);
				expect(refused[0]).toMatch(
					/makes no request until \S+Z \(n8n's clock; refused logins in a row: 1/,
				);
				expect(refused[0]).toContain('publish the workflow again to retry at once');
			}
		});

		/** Whether n8n kept the republished trigger published: 2.x does, 1.x refuses a publication whose first poll fails. */
		let keptPublished = true;
		test('published again, a trigger retries at once, and pauses again (n8n 1.x refuses the publication, saying why)', async () => {
			const name = 'Missed chats';
			await setPublished(env, ids[name], false);
			keptPublished = await setPublished(env, ids[name], true).then(
				(workflow) => workflow.active === true,
				(error: Error) => {
					expect(error.message).toMatch(
						/400 .*problem activating the workflow.*Wrong email or password/,
					);
					return false;
				},
			);
			expect(keptPublished).toBe(runtimeFlavour().name === 'n8n-2');
			await waitFor('the republished trigger to try again', async () => failedLogins() >= 4);
			// n8n runs that first poll as part of the publication: 2.x keeps its error as the workflow's activation error,
			// not as an execution, and the polls after it pause again.
			await clock.after(QUIET_POLLS);
			expect(failedLogins()).toBe(4);
			expect((await runsOf(name)).refused).toHaveLength(1);
		});

		test('the corrected password brings every trigger back at its next poll, with no further wrong login', async () => {
			await setPassword(env.sandbox.admin.password);
			if (!keptPublished) await setPublished(env, ids['Missed chats'], true);
			// One change for each event: a chat nobody answered (a change, a missed chat) and an operator's new status.
			env.sandbox.control.addMissedChat('fields');
			const [operator] = env.sandbox.control.getOperators();
			env.sandbox.control.setOperatorStatus(
				operator.id,
				operator.status === 'dinner' ? 'online' : 'dinner',
			);
			await waitFor('a good execution of each trigger', async () =>
				(await Promise.all(Object.keys(PAUSING).map(runsOf))).every((runs) => runs.succeeded > 0),
			);
			expect(failedLogins()).toBe(4);
			// Four wrong logins in all, against a lockout at 5 within a minute: never locked, the admin never refused.
			expect(worst).toEqual({ failures: 4, locked: false });
			const forbidden = env.sandbox.control.requestLog().filter(({ status }) => status === 403);
			expect(forbidden).toEqual([]);
		});
	});
}
