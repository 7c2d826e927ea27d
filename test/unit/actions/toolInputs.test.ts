// As a tool (issue 65): what a model is told to send, and what it hears when it sent something the tool cannot use.
import { extractFromAICalls, NodeOperationError } from 'n8n-workflow';

import { SVC_ERROR_CODES } from '../../../nodes/SvcChat/transport/errors';
import { EXAMPLE_IDS, findExample, readExamples } from '../../../scripts/examples';
import { runNode, runNodeError, svc } from './runNode';

const setStatus = { resource: 'operator', operation: 'setStatus', email: 'anna@svc.test' };
const STATUS_INPUT =
	"={{ $fromAI('status', 'The new status, one of: dinner, invisible, offline, online, pre-dinner', 'string') }}";
/** Spec 3's seen statuses, in the order the node's Status field lists them. */
const STATUSES = 'dinner, invisible, offline, online, pre-dinner';

test('Set operator status as a tool: a status the model made up is refused before anything is sent, with the statuses and what to send; a listed one goes out, and from an editor expression any', async () => {
	for (const status of ['away', 'Online']) {
		const error = await runNodeError(
			{ ...setStatus, status },
			{ asTool: true, stored: { status: STATUS_INPUT } },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`'Status' is "${status}", which Svc does not know: the statuses are ${STATUSES}`,
		);
		expect(error.description).toBe('Call the tool again with `status` set to one of them.');
	}
	svc().post('/api/v2/rt/agent_status').times(2).reply(200, { result: 'ok' });
	const asTool = await runNode(
		{ ...setStatus, status: 'dinner' },
		{ asTool: true, stored: { status: STATUS_INPUT } },
	);
	expect(asTool[0].json).toMatchObject({ result: 'ok', status: 'dinner' });
	const fromExpression = await runNode(
		{ ...setStatus, status: 'away' },
		{ stored: { status: '={{ $json.status }}' } },
	);
	expect(fromExpression[0].json).toMatchObject({ result: 'ok', status: 'away' });
});

test("example 12's status input lists the statuses the tool takes, as the error does", () => {
	const tool = findExample(readExamples(), EXAMPLE_IDS.mcpServer).nodes.find(
		(node) => node.name === 'Set operator status',
	);
	const [input] = extractFromAICalls(String(tool?.parameters.status));
	// In the words of the error above, so the model reads one list.
	expect(input.description).toBe(`The new status, one of: ${STATUSES}`);
});

test('an unknown operator email says what to send, in words that fit a tool list as well as the editor', () => {
	const { fix } = SVC_ERROR_CODES['invalid-agent-email'];
	expect(fix).not.toMatch(/Get many operators/);
	expect(fix).toMatch(
		/give the email of one of the account's operators, as a list of the operators shows it/,
	);
});
