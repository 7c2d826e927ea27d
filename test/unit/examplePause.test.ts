// Issue 64: every webhook example's Svc nodes answer a failure through their error output, a pause with 503 and its end.
import type { INode } from 'n8n-workflow';

import { forgetAccounts, underLoginGuard } from '../../nodes/SvcChat/transport/loginGuard';
import { readExamples } from '../../scripts/examples';
import type { Workflow } from '../../scripts/n8n';

const WEBHOOK = 'n8n-nodes-base.webhook';
const RESPOND = 'n8n-nodes-base.respondToWebhook';
const IF = 'n8n-nodes-base.if';

const webhookExamples = readExamples().filter(({ nodes }) =>
	nodes.some(({ type }) => type === WEBHOOK),
);

/** The message a webhook's run (no person started it) gets from the guard once a refused login paused the account. */
async function pauseMessage() {
	forgetAccounts();
	const node = { name: 'Svc', type: 'n8n-nodes-svc.svcChat' } as INode;
	const context = { getNode: () => node, getMode: () => 'webhook' as const };
	const credentials = { host: 'https://svc.example', email: 'admin@svc.example', password: 'x' };
	const refuse = async (answered: (status: number) => string) => {
		answered(401);
		throw new Error('refused');
	};
	await expect(underLoginGuard(context, credentials, 0, refuse)).rejects.toThrow('refused');
	const paused = await underLoginGuard(context, credentials, 0, refuse).catch(
		(error: Error) => error,
	);
	forgetAccounts();
	return (paused as Error).message;
}

/** The nodes an output of `from` leads to, by name. */
const next = ({ connections }: Workflow, from: string, output: number) =>
	(connections[from]?.main[output] ?? []).map((link) => link!.node);

test('the webhook examples are 2, 4 and 13, each answering through Respond to Webhook nodes', () => {
	expect(webhookExamples.map(({ id }) => id).sort()).toEqual([
		'svcExample13Contact',
		'svcExample2Broadcast',
		'svcExample4Visitor',
	]);
	for (const { nodes } of webhookExamples)
		for (const webhook of nodes.filter(({ type }) => type === WEBHOOK))
			expect({ [webhook.name]: webhook.parameters.responseMode }).toEqual({
				[webhook.name]: 'responseNode',
			});
});

test.each(webhookExamples.map((example) => [example.name, example]))(
	'%s: each Svc node sends a failure to its error output, Paused? answers the pause 503 with its end, the rest with the message',
	async (_, workflow) => {
		const message = await pauseMessage();
		const [, until] = /until (\S+?Z)/.exec(message)!;
		const byName = new Map(workflow.nodes.map((node) => [node.name, node]));
		const svcNodes = workflow.nodes.filter(({ type }) => type.startsWith('n8n-nodes-svc.'));
		expect(svcNodes.length).toBeGreaterThan(0);
		for (const svc of svcNodes) {
			expect({ [svc.name]: svc.onError }).toEqual({ [svc.name]: 'continueErrorOutput' });
			const [check] = next(workflow, svc.name, 1).map((name) => byName.get(name)!);
			expect({ [svc.name]: check?.type }).toEqual({ [svc.name]: IF });
			// The IF's test holds for the guard's own message.
			const conditions = (check.parameters.conditions as { conditions: object[] }).conditions;
			expect(conditions).toEqual([
				expect.objectContaining({
					leftValue: '={{ $json.error }}',
					operator: { type: 'string', operation: 'startsWith' },
				}),
			]);
			const [{ rightValue }] = conditions as Array<{ rightValue: string }>;
			expect(message.startsWith(rightValue)).toBe(true);
			const [paused, failed] = [0, 1].map((output) => {
				const names = next(workflow, check.name, output);
				expect(names).toHaveLength(1);
				return byName.get(names[0])!;
			});
			expect([paused.type, failed.type]).toEqual([RESPOND, RESPOND]);
			const options = paused.parameters.options as {
				responseCode: number;
				responseHeaders: { entries: Array<{ name: string; value: string }> };
			};
			expect(options.responseCode).toBe(503);
			expect((failed.parameters.options as { responseCode: number }).responseCode).not.toBe(503);
			const [header] = options.responseHeaders.entries;
			expect(header.name).toBe('Retry-After');
			// Both read the pause's end from the message with one pattern, which finds it there.
			const ends = [String(paused.parameters.responseBody), header.value].map(
				(expression) => /\$json\.error\.match\(\/(.+?)\/\)\[1\]/.exec(expression)?.[1],
			);
			expect(ends[0]).toBe(ends[1]);
			expect(new RegExp(ends[0]!).exec(message)?.[1]).toBe(until);
			expect(new Date(until).toISOString()).toBe(until);
		}
	},
);
