// E2E on n8n 1.x: New Rating and Missed Chat, then the pause after a refused login (the 2.x scenarios, reused as
// is). An n8n of its own, not the one of n8n1.test.ts: both files then run side by side, once the 1.x runtime is
// installed, rather than one after the other.
import './n8n1Flavour';

import { useE2eEnvironment } from './environment';
import { testChatEvents } from './trigger-chat-events.scenario';
import { testLoginBackOff } from './trigger-backoff.scenario';

const env = useE2eEnvironment(
	{ sandbox: { seed: 25, chats: 150 } },
	async (started) => await started.n8n.start(),
);
testChatEvents(env);
testLoginBackOff(env);
