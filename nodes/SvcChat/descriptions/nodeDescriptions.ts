// The action node's one-line description; the trigger's, which n8n's node creator shows for both, starts with it.

export const SVC_CHAT_DESCRIPTION =
	'Read chats, operators and statistics, set operator status, pair visitors and send template broadcasts with the Svc chat server';
