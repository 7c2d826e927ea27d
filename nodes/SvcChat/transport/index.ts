// THE HTTP helper's one entry point: every request of every Svc node goes through here (base URL, auth, retries, reply decoding).
export { normalizeBaseUrl, isLoopbackHostname } from './baseUrl';
export { isCursor } from './decode';
export {
	DEFAULT_RETRY_POLICY,
	parseRetryAfter,
	resolveRetryPolicy,
	type RetryPolicy,
} from './retry';
export { sendSvcRequest, svcApiRequest, toNodeApiError } from './request';
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
