// Example 12's MCP server and the official MCP client (Streamable HTTP): the demo and the e2e tests connect alike.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { EXAMPLE_IDS, findExample, readExamples } from './examples';
import type { N8n } from './n8n';

/**
 * Publishes example 12 behind a Bearer Auth credential holding `token`, by the name the file gives (the file holds no
 * token), and returns its MCP Server Trigger's production URL: n8n serves MCP under /mcp/.
 */
export async function publishMcpExample(n8n: N8n, token: string): Promise<string> {
	const example = findExample(readExamples(), EXAMPLE_IDS.mcpServer);
	const trigger = example.nodes.find(({ type }) => type === '@n8n/n8n-nodes-langchain.mcpTrigger');
	const named = trigger?.credentials?.httpBearerAuth;
	if (!trigger || !named)
		throw new Error(`${example.id} has no MCP Server Trigger with Bearer Auth`);
	await n8n.importCredentials([
		{ id: named.id ?? '', name: named.name, type: 'httpBearerAuth', data: { token } },
	]);
	await n8n.importWorkflows([example]);
	await n8n.publishWorkflows([example.id]);
	return `${n8n.baseUrl}/mcp/${String(trigger.parameters.path)}`;
}

/** An MCP client connected to `url` with the bearer token; close() ends its session. */
export async function connectMcp(url: string, token: string): Promise<Client> {
	const client = new Client({ name: 'n8n-nodes-svc', version: '1.0.0' });
	const headers = { authorization: `Bearer ${token}` };
	await client.connect(
		new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
	);
	return client;
}
