// P1 with Visitor Waiting: the trigger's catch-up on 20,000 changed chats judging every wait, against Every Change.
import type { IDataObject } from 'n8n-workflow';

import { credentialsFor, pollContextForTiming } from './harness';
import { loadNodes } from './nodes';
import type { P1Options } from './p1-catchup';
import { startSandboxProcess } from './sandboxProcess';
import { elapsedMs, figures, round, type Figures } from './stats';

const TARGET = 1.15;
const EVENTS = ['everyChange', 'visitorWaiting'] as const;
type Event = (typeof EVENTS)[number];

export interface P1WaitingResult {
	chats: number;
	/** Visitor Waiting's items: the seeded open chats whose visitor waits, all past 3 minutes at once. */
	waiting: number;
	/** Both read the same pages, and Visitor Waiting no chat again (every due chat came in the walk). */
	sameRequests: true;
	everyChange: Figures;
	visitorWaiting: Figures;
	/** Median Visitor Waiting / median Every Change. */
	ratio: number;
	target: string;
	met: boolean;
}

/** The same catch-up from Beginning of History, Raw chats, once per event, alternating which goes first. */
export async function benchWaitingCatchUp(options: P1Options): Promise<P1WaitingResult> {
	const { runs, chats, log } = options;
	const [nodes, sandbox] = await Promise.all([
		loadNodes(),
		startSandboxProcess({ chats, seed: 1 }),
	]);
	const trigger = new nodes.SvcChatTrigger();
	try {
		const credentials = credentialsFor(sandbox);
		const poll = async (emit: Event) => {
			const own = emit === 'visitorWaiting' ? { waitLongerThan: 3, chatOutput: 'raw' } : {};
			const parameters = { startFrom: 'beginning', emit, output: 'raw', ...own };
			const options = { maxChatsPerPoll: chats * 10 };
			const context = pollContextForTiming({
				description: trigger.description,
				parameters: { ...parameters, options },
				credentials,
				staticData: {},
				timezone: 'Europe/Berlin',
			});
			return ((await trigger.poll.call(context))?.[0] ?? []).map((item) => item.json);
		};
		// Unmeasured first round: what each run must give, and the requests each sends.
		const counts: Record<Event, number> = { everyChange: 0, visitorWaiting: 0 };
		const requests: number[] = [];
		for (const emit of EVENTS) {
			const logged = (await sandbox.requestLog()).length;
			counts[emit] = (await poll(emit)).length;
			requests.push((await sandbox.requestLog()).length - logged);
		}
		if (counts.everyChange !== chats || !counts.visitorWaiting || requests[0] !== requests[1])
			throw new Error(`Not the same work: ${JSON.stringify({ counts, requests })}`);
		const check = (emit: Event, items: IDataObject[]) => {
			if (items.length !== counts[emit]) throw new Error(`${emit} gave ${items.length} items`);
		};
		const times: Record<Event, number[]> = { everyChange: [], visitorWaiting: [] };
		for (let run = 0; run < runs; run++) {
			for (const emit of run % 2 ? [...EVENTS].reverse() : EVENTS) {
				const startedAt = performance.now();
				const items = await poll(emit);
				times[emit].push(Math.round(elapsedMs(startedAt)));
				check(emit, items);
			}
			log(
				`P1 Visitor Waiting run ${run + 1}/${runs}: Every Change ${times.everyChange[run]} ms, Visitor Waiting ${times.visitorWaiting[run]} ms`,
			);
		}
		const everyChange = figures(times.everyChange, 'ms');
		const visitorWaiting = figures(times.visitorWaiting, 'ms');
		const ratio = round(visitorWaiting.median / everyChange.median);
		return {
			chats,
			waiting: counts.visitorWaiting,
			sameRequests: true,
			everyChange,
			visitorWaiting,
			ratio,
			target: `trigger Visitor Waiting / Every Change <= ${TARGET}`,
			met: ratio <= TARGET,
		};
	} finally {
		await sandbox.stop();
	}
}
