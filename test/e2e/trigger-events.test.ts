// Real n8n 2.41.1: the benchmarks' execute-batch reader, the trigger's operator events, then New Rating and Missed Chat,
// then the pause after a refused login, on one n8n (the scenarios are shared with n8n 1.x).
import { testChatEvents } from './trigger-chat-events.scenario';
import { testLoginBackOff } from './trigger-backoff.scenario';
import { testOperatorEvents } from './trigger-operators.scenario';
import { useE2eEnvironment } from './environment';
import { testExecuteBatchOutcomes } from './execute-batch.scenario';

// One n8n start for both: the operator triggers read GET /operators, the chat triggers /chats (more chats than a page).
const env = useE2eEnvironment(
	{ sandbox: { seed: 25, chats: 150 } },
	async (started) => await started.n8n.start(),
);
// First: execute-batch runs in a process of its own beside this n8n, before any trigger polls the sandbox.
describe("the harness reads every outcome of n8n's execute-batch", () =>
	testExecuteBatchOutcomes(() => env));
testOperatorEvents(env);
testChatEvents(env);
testLoginBackOff(env);
