// n8n-core's real outbound request stack (axios) with the Svc API credentials applied as n8n applies them.
import { Container } from '@n8n/di';
import { OutboundHttp } from '@n8n/backend-network';
import { NodeApiError, type IHttpRequestOptions, type INode } from 'n8n-workflow';

import { SvcApi } from '../../credentials/SvcApi.credentials';
import type { SvcCredentials } from '../../nodes/SvcChat/transport';

/** Resolves the `={{$credentials.x}}` references of the credential's generic `authenticate` block. */
function resolveCredentialExpression(value: string, credentials: SvcCredentials): string {
	const match = /^=\{\{\s*\$credentials\.(\w+)\s*\}\}$/.exec(value);
	if (!match) throw new Error(`Unsupported expression in SvcApi.authenticate: ${value}`);
	const resolved = (credentials as unknown as Record<string, unknown>)[match[1]];
	if (typeof resolved !== 'string') throw new Error(`Credential field ${match[1]} is not set`);
	return resolved;
}

/** Applies SvcApi.authenticate (HTTP Basic) to a request, as n8n's credentials helper does. */
export function authenticate(credentials: SvcCredentials, options: IHttpRequestOptions): IHttpRequestOptions {
	const { auth } = new SvcApi().authenticate.properties;
	if (!auth) throw new Error('SvcApi.authenticate has no Basic auth block');
	return {
		...options,
		auth: {
			username: resolveCredentialExpression(auth.username, credentials),
			password: resolveCredentialExpression(auth.password, credentials),
		},
	};
}

/** n8n-core's request helper: the same axios stack, agents and option conversion that n8n uses. */
export async function n8nHttpRequest(options: IHttpRequestOptions): Promise<unknown> {
	// @n8n/backend-common nests its own n8n-workflow copy, so the option types differ only by identity.
	return await Container.get(OutboundHttp).requests().request(options as never);
}

/**
 * `httpRequestWithAuthentication` as n8n-core implements it for a generic credential:
 * authenticate, send, and wrap any failure in a NodeApiError whose cause is the original error.
 */
export async function n8nHttpRequestWithAuthentication(
	node: INode,
	credentials: SvcCredentials,
	options: IHttpRequestOptions,
): Promise<unknown> {
	try {
		return await n8nHttpRequest(authenticate(credentials, options));
	} catch (error) {
		throw new NodeApiError(node, error as never);
	}
}

