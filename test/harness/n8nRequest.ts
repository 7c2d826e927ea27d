// n8n-core's real outbound request stack (axios), as n8n's request helpers use it for the Svc API credentials.
import { Container } from '@n8n/di';
import { OutboundHttp } from '@n8n/backend-network';
import { NodeApiError, type IHttpRequestOptions, type INode } from 'n8n-workflow';

/** n8n-core's request helper: the same axios stack, agents and option conversion that n8n uses. */
async function n8nHttpRequest(options: IHttpRequestOptions): Promise<unknown> {
	// @n8n/backend-common nests its own n8n-workflow copy, so the option types differ only by identity.
	return await Container.get(OutboundHttp)
		.requests()
		.request(options as never);
}

/**
 * `httpRequestWithAuthentication` as n8n-core implements it for a credential without an `authenticate` block
 * (the transport sets Basic auth itself): send unchanged, and wrap any failure in a NodeApiError whose cause is the
 * original error.
 */
export async function n8nHttpRequestWithAuthentication(
	node: INode,
	options: IHttpRequestOptions,
): Promise<unknown> {
	try {
		return await n8nHttpRequest(options);
	} catch (error) {
		throw new NodeApiError(node, error as never);
	}
}
