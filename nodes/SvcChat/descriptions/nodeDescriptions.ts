// The one-line descriptions of the Svc nodes, kept together because n8n's node creator shows one for both.

export const SVC_CHAT_DESCRIPTION =
	'Read chats, operators and statistics, set operator status, pair visitors and send template broadcasts with the Svc chat server';

// n8n's node creator shows the trigger's description under the "Svc Chat" entry, so it starts with the app's.
export const SVC_CHAT_TRIGGER_DESCRIPTION = `${SVC_CHAT_DESCRIPTION}, or start a workflow on new or changed chats, new ratings, missed chats, or a change of an operator's status or of operator availability`;
