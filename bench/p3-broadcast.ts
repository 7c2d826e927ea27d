// P3: 10,000 input items through Broadcast > Send Template with its default batching, against one request per item
// (what an HTTP Request node does for each item) and against its limit, the same batched requests sent by a bare fetch
// loop. The sandbox counts the requests and checks every recipient arrived.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { BroadcastRecord } from '../sandbox';
import { credentialsFor, executeContextForTiming, resolvedParameters } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess, type SandboxProcess } from './sandboxProcess';
import { elapsedMs, figures, median, round, type Figures } from './stats';

export interface P3Options {
	runs: number;
	items: number;
	log: (line: string) => void;
}

export interface P3Result {
	items: number;
	svcChat: { ms: Figures; requests: number };
	perItem: { ms: Figures; requests: number };
	/** The same batched requests, bodies built from the same items, sent by a bare fetch loop: the limit. */
	limit: { ms: Figures; requests: number };
	/** Median one-request-per-item time / median Svc Chat time: how many times faster the node is. */
	speedup: number;
	/** Median Svc Chat time / median limit time: how far the node is from the limit (1 is the limit). */
	overLimit: number;
	target: string;
	met: boolean;
}

const TARGET = 20;
/** The node's default Recipients per Request. */
const RECIPIENTS_PER_REQUEST = 1000;
const TEMPLATE = {
	operatorId: 1,
	channelId: 'wa-main',
	templateId: 'welcome_v2',
	languageCode: 'en',
};
const phoneOf = (index: number) => `+1555${String((index % 50) + 1).padStart(7, '0')}`;

/** The entry the node sends for one recipient, with one body parameter. */
const entryOf = (index: number): IDataObject => ({
	phone_number: phoneOf(index),
	language_code: TEMPLATE.languageCode,
	body: { type: 'body', parameters: [{ type: 'text', text: `Customer ${index}` }] },
});

/** One POST /rt/send_broadcast of `entries` with fetch (keep-alive). */
async function postBroadcast(sandbox: SandboxProcess, entries: IDataObject[]): Promise<void> {
	const body = {
		operator_id: TEMPLATE.operatorId,
		data: {
			kind: 'msgapp',
			channel_id: TEMPLATE.channelId,
			data: { template_id: TEMPLATE.templateId, entries },
		},
	};
	const reply = await fetch(`${sandbox.url}/api/v2/rt/send_broadcast`, {
		method: 'POST',
		headers: { authorization: sandbox.authorization, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const result = (await reply.json()) as IDataObject;
	if (result.result !== 'ok') throw new Error(`Broadcast refused: ${JSON.stringify(result)}`);
}

async function sendOnePerItem(sandbox: SandboxProcess, items: number): Promise<void> {
	for (let index = 0; index < items; index++) await postBroadcast(sandbox, [entryOf(index)]);
}

/** The limit: the node's requests, one after the other, with nothing but building their bodies from the items. */
async function sendBatchedBare(sandbox: SandboxProcess, items: number): Promise<void> {
	for (let first = 0; first < items; first += RECIPIENTS_PER_REQUEST) {
		const entries: IDataObject[] = [];
		for (let index = first; index < Math.min(items, first + RECIPIENTS_PER_REQUEST); index++)
			entries.push(entryOf(index));
		await postBroadcast(sandbox, entries);
	}
}

async function sendWithSvcChat(sandbox: SandboxProcess, items: number): Promise<void> {
	const { SvcChat } = await loadNodes();
	const node = new SvcChat();
	const credentials = credentialsFor(sandbox);
	const input: INodeExecutionData[] = Array.from({ length: items }, (_, index) => ({
		json: { phone: phoneOf(index), name: `Customer ${index}` },
	}));
	const parameters = {
		resource: 'broadcast',
		operation: 'sendTemplate',
		...TEMPLATE,
		phoneNumber: '',
		bodyParameters: { parameter: [{ text: '' }] },
	};
	const context = executeContextForTiming({
		description: node.description,
		parameters,
		credentials,
		items: input,
	});
	// As n8n evaluates {{ $json.phone }} and {{ $json.name }} for each item.
	context.getNodeParameter = resolvedParameters(node.description, parameters, {
		phoneNumber: (index) => input[index].json.phone,
		'bodyParameters.parameter': (index) => [{ text: input[index].json.name }],
	});
	const [output] = await node.execute.call(context);
	const failed = output.filter((item) => item.json.result !== 'ok');
	if (output.length !== items || failed.length)
		throw new Error(
			`Svc Chat sent ${output.length - failed.length} of ${items}: ${JSON.stringify(failed[0]?.json)}`,
		);
}

/** The sandbox saw exactly `requests` broadcast requests carrying every recipient once, in order. */
async function checkDelivery(sandbox: SandboxProcess, items: number): Promise<number> {
	const requests = (await sandbox.requestLog()).filter(
		(entry) => entry.path === '/api/v2/rt/send_broadcast',
	);
	const broadcasts = await sandbox.control<BroadcastRecord[]>('GET', 'broadcasts');
	const entries = broadcasts.flatMap((broadcast) => broadcast.data.entries as IDataObject[]);
	const expected = Array.from({ length: items }, (_, index) => entryOf(index));
	if (JSON.stringify(entries) !== JSON.stringify(expected))
		throw new Error(`The sandbox received ${entries.length} entries, not the ${items} expected`);
	if (requests.some((entry) => entry.status !== 200)) throw new Error('A broadcast request failed');
	return requests.length;
}

export async function benchBroadcast({ runs, items, log }: P3Options): Promise<P3Result> {
	const sandbox = await startSandboxProcess({ chats: 10, seed: 3 });
	try {
		const senders = {
			svcChat: () => sendWithSvcChat(sandbox, items),
			perItem: () => sendOnePerItem(sandbox, items),
			limit: () => sendBatchedBare(sandbox, items),
		};
		const names = Object.keys(senders) as Array<keyof typeof senders>;
		const times: Record<keyof typeof senders, number[]> = { svcChat: [], perItem: [], limit: [] };
		const requests: Record<keyof typeof senders, number[]> = {
			svcChat: [],
			perItem: [],
			limit: [],
		};
		for (let run = 0; run < runs; run++) {
			// Rotate the order, so that none always runs first (or last) in a round.
			const order = [...names.slice(run % names.length), ...names.slice(0, run % names.length)];
			for (const name of order) {
				await sandbox.control('POST', 'reset');
				const startedAt = performance.now();
				await senders[name]();
				times[name].push(Math.round(elapsedMs(startedAt)));
				requests[name].push(await checkDelivery(sandbox, items));
			}
			log(
				`P3 run ${run + 1}/${runs}: Svc Chat ${times.svcChat[run]} ms in ${requests.svcChat[run]} request(s), bare batched ${times.limit[run]} ms in ${requests.limit[run]}, one per item ${times.perItem[run]} ms in ${requests.perItem[run]} requests`,
			);
		}
		const svcChat = { ms: figures(times.svcChat, 'ms'), requests: median(requests.svcChat) };
		const perItem = { ms: figures(times.perItem, 'ms'), requests: median(requests.perItem) };
		const limit = { ms: figures(times.limit, 'ms'), requests: median(requests.limit) };
		if (limit.requests !== svcChat.requests)
			throw new Error(`The limit sent ${limit.requests} requests, Svc Chat ${svcChat.requests}`);
		const speedup = round(perItem.ms.median / svcChat.ms.median, 1);
		return {
			items,
			svcChat,
			perItem,
			limit,
			speedup,
			overLimit: round(svcChat.ms.median / limit.ms.median, 2),
			target: `one request per item / Svc Chat >= ${TARGET}x`,
			met: speedup >= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}
