// Issue 64: every trigger an example ships that anyone can call over HTTP asks who is calling.
import { readExamples } from '../../scripts/examples';

/** n8n's node types that answer HTTP calls from outside, each with an `authentication` parameter (default none). */
const CALLED_FROM_OUTSIDE = [
	'n8n-nodes-base.webhook',
	'n8n-nodes-base.formTrigger',
	'@n8n/n8n-nodes-langchain.chatTrigger',
	'@n8n/n8n-nodes-langchain.mcpTrigger',
];

const triggers = readExamples().flatMap((example) =>
	example.nodes
		.filter(({ type }) => CALLED_FROM_OUTSIDE.includes(type))
		.map((node) => ({ example: example.name, node })),
);

test('the examples ship webhooks and an MCP server trigger', () => {
	const types = new Set(triggers.map(({ node }) => node.type));
	expect(types).toEqual(new Set(['n8n-nodes-base.webhook', '@n8n/n8n-nodes-langchain.mcpTrigger']));
	expect(triggers.length).toBeGreaterThanOrEqual(5);
});

test.each(triggers.map((one) => [`${one.example} / ${one.node.name}`, one]))(
	'%s: asks who is calling, with a credential for its authentication',
	(_, { node }) => {
		const authentication = node.parameters.authentication ?? 'none';
		expect({ node: node.name, authentication }).not.toEqual({
			node: node.name,
			authentication: 'none',
		});
		// The credential its authentication checks, by name: each user creates their own.
		const credential = {
			headerAuth: 'httpHeaderAuth',
			bearerAuth: 'httpBearerAuth',
			basicAuth: 'httpBasicAuth',
			jwtAuth: 'jwtAuth',
		}[String(authentication)];
		expect({ node: node.name, credential: node.credentials?.[credential ?? '']?.name }).toEqual({
			node: node.name,
			credential: expect.any(String),
		});
	},
);
