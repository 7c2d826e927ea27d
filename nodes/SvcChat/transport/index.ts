// THE HTTP helper's one entry point: every request of every Svc node goes through here (base URL, auth, retries, reply decoding).
export { normalizeBaseUrl, isLoopbackHostname } from './baseUrl';
export { isCursor } from './cursor';
export {
	ENDPOINTS,
	NOT_RETRIED_NOTE,
	type Endpoint,
	type EndpointPath,
	type ReplyOf,
	type ReplyTo,
	type RetryRule,
	type StatsReplies,
} from './endpoints';
export { parseRetryAfter, retryPolicy, type RetryPolicy } from './retry';
export { sendSvcRequest, sendToEndpoint, svcRequest, toNodeApiError } from './request';
export {
	addLatestVersions,
	svcChatPages,
	svcGetChats,
	type ChatPage,
	type ChatPageOptions,
	type CollectedChats,
	type GetChatsOptions,
} from './chatPages';
export { compareCursors } from './cursor';
export { FULL_CHAT_CONCURRENCY, isMinimalChat } from './fullChats';
export {
	CREDENTIALS_TYPE,
	type SvcApiContext,
	type SvcCredentials,
	type SvcFailure,
	type SvcHttpResponse,
	type SvcOutcome,
	type SvcRequestOptions,
	type SvcSend,
} from './types';
