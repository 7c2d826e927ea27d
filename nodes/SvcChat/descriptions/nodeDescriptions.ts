// The one-line descriptions of the Svc nodes, kept together because n8n's node creator shows one for both.

/** What the Svc Chat node (and its AI-tool variant) does. */
export const SVC_CHAT_DESCRIPTION =
	'Read chats, operators and statistics, set operator status, pair visitors and send template broadcasts with the Svc chat server';

/**
 * n8n's node creator merges "Svc Chat Trigger" into the "Svc Chat" entry and shows the trigger's description under
 * that heading, so the trigger's description starts with the app's and then says what the trigger adds.
 */
export const SVC_CHAT_TRIGGER_DESCRIPTION = `${SVC_CHAT_DESCRIPTION}, or start a workflow when chats are new or have changed, or when operators' statuses change`;
