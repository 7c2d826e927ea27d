// The workflows of the queue-mode e2e: a fast-polling trigger over a backlog, a webhook export and a webhook broadcast.
import type { INode } from 'n8n-workflow';

import { pollEvery } from '../../scripts/examples';
import type { Workflow } from '../../scripts/n8n';

export const BACKLOG_CREDENTIAL = { id: 'svcQueueBacklog1', name: 'Svc backlog sandbox' };
export const EXPORT_CREDENTIAL = { id: 'svcQueueExports1', name: 'Svc export sandbox' };

export const IDS = {
	backlog: 'svcQueueBacklog',
	export: 'svcQueueExport',
	broadcast: 'svcQueueBroadcast',
};
export const TRIGGER_NODE = 'Chat changes';
export const EXPORT_NODE = 'All chats';
export const SEND_NODE = 'Send template';
export const WEBHOOK_PATHS = { export: 'svc-queue-export', broadcast: 'svc-queue-broadcast' };

/** Seconds between the trigger's polls (pollEvery: one cron per second mark); a poll of 250 chats takes well under. */
const POLL_EVERY_SECONDS = 2;
export const MAX_CHATS_PER_POLL = 250;
/** Each trigger execution waits this long on its worker, so a worker can be killed during one. */
export const EXECUTION_SECONDS = 4;

const svcCredential = (credential: { id: string; name: string }) => ({ svcApi: credential });
const chain = (...names: string[]): Workflow['connections'] =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
			]),
	);

function node(
	id: string,
	name: string,
	type: string,
	typeVersion: number,
	parameters: INode['parameters'],
	extra: Partial<INode> = {},
): INode {
	return {
		id: `5e2e0000-0000-4000-8000-${id.padStart(12, '0')}`,
		name,
		type,
		typeVersion,
		position: [0, 0],
		parameters,
		...extra,
	};
}

const waitSeconds = (id: string, name: string, seconds: number) =>
	node(id, name, 'n8n-nodes-base.wait', 1.1, {
		resume: 'timeInterval',
		amount: seconds,
		unit: 'seconds',
	});

export function backlogWorkflow(): Workflow {
	return {
		id: IDS.backlog,
		name: 'Queue: chat backlog',
		nodes: [
			node(
				'1',
				TRIGGER_NODE,
				'n8n-nodes-svc.svcChatTrigger',
				1,
				{
					pollTimes: pollEvery(POLL_EVERY_SECONDS),
					startFrom: 'beginning',
					emit: 'everyChange',
					output: 'simplified',
					options: { maxChatsPerPoll: MAX_CHATS_PER_POLL, includeCursor: true },
				},
				{ credentials: svcCredential(BACKLOG_CREDENTIAL) },
			),
			waitSeconds('2', 'Work on the chats', EXECUTION_SECONDS),
		],
		connections: chain(TRIGGER_NODE, 'Work on the chats'),
		settings: { executionOrder: 'v1' },
	};
}

const exportNode = () =>
	node(
		'11',
		EXPORT_NODE,
		'n8n-nodes-svc.svcChat',
		1,
		{
			resource: 'chat',
			operation: 'getMany',
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
			output: 'simplified',
		},
		{ credentials: svcCredential(EXPORT_CREDENTIAL) },
	);

const webhook = (id: string, path: string) =>
	node(
		id,
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		{
			webhookId: `5e2e0000-0000-4000-9000-${id.padStart(12, '0')}`,
		},
	);

/** Started by a webhook, so in queue mode it runs on a worker. */
export function exportWorkflow(): Workflow {
	return {
		id: IDS.export,
		name: 'Queue: export (webhook)',
		nodes: [webhook('10', WEBHOOK_PATHS.export), exportNode()],
		connections: chain('Webhook', EXPORT_NODE),
		settings: { executionOrder: 'v1' },
	};
}

const PAUSE_NODE = 'After the send';
/**
 * Small requests, so a stop or a kill meets a broadcast of several requests without thousands of items: Send Template
 * reads every recipient (n8n evaluating its expressions) in one synchronous stretch before its first request, and
 * 3,000 of them held a loaded worker's event loop past its Bull lock, which failed the job as stalled before the stop
 * could reach it. The default of 1,000 is the unit tests'.
 */
export const RECIPIENTS_PER_REQUEST = 20;

/**
 * Webhook body {contacts: [{phone, name}]} → one item per contact → Send Template → a pause after the send. Also run on
 * the engine without the pause (test/engine/broadcast-stop.test.ts), where it would only add 4 s to each run.
 */
export function broadcastWorkflow({ pauseAfterSend = true } = {}): Workflow {
	return {
		id: IDS.broadcast,
		name: 'Queue: template broadcast (webhook)',
		nodes: [
			webhook('30', WEBHOOK_PATHS.broadcast),
			node('31', 'One item per contact', 'n8n-nodes-base.splitOut', 1, {
				fieldToSplitOut: 'body.contacts',
				options: {},
			}),
			node(
				'32',
				SEND_NODE,
				'n8n-nodes-svc.svcChat',
				1,
				{
					resource: 'broadcast',
					operation: 'sendTemplate',
					operatorId: 1,
					channelId: 'wa-main',
					templateId: 'welcome_v2',
					phoneNumber: '={{ $json.phone }}',
					languageCode: 'en',
					bodyParameters: { parameter: [{ text: '={{ $json.name }}' }] },
					options: { recipientsPerRequest: RECIPIENTS_PER_REQUEST },
				},
				{ credentials: svcCredential(EXPORT_CREDENTIAL) },
			),
			...(pauseAfterSend ? [waitSeconds('33', PAUSE_NODE, 4)] : []),
		],
		connections: chain(
			'Webhook',
			'One item per contact',
			SEND_NODE,
			...(pauseAfterSend ? [PAUSE_NODE] : []),
		),
		settings: { executionOrder: 'v1' },
	};
}
