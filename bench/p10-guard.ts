// P10: what the login guard costs a healthy account: ten triggers of one credential due at the same second, against a
// server answering in 50 ms and in 300 ms, timed against one trigger alone (one round trip, nothing to wait for).
import { sleep } from 'n8n-workflow';

import { credentialsFor, pollContextForTiming } from './harness';
import { loadNodes } from './nodes';
import { startSandboxProcess } from './sandboxProcess';
import { figures, round, type Figures } from './stats';

const WORKFLOWS = 10;
/** Longer than the guard's proof (PROVEN_FOR_MS): each burst finds the account as a minute's poll does. */
const BETWEEN_BURSTS_MS = 1_100;

export interface P10Result {
	workflows: number;
	perReplyDelay: Array<{ replyDelayMs: number; alone: Figures; burst: Figures; ratio: number }>;
}

export async function benchLoginGuard({
	runs,
	log,
}: {
	runs: number;
	log: (line: string) => void;
}): Promise<P10Result> {
	const { SvcChatTrigger } = await loadNodes();
	const perReplyDelay: P10Result['perReplyDelay'] = [];
	for (const replyDelayMs of [50, 300]) {
		const sandbox = await startSandboxProcess({ chats: 1, replyDelayMs });
		try {
			const trigger = new SvcChatTrigger();
			const poll = async () => {
				const context = pollContextForTiming({
					description: trigger.description,
					parameters: { emit: 'operatorStatusChanged' },
					credentials: credentialsFor(sandbox),
					staticData: {},
				});
				await trigger.poll.call(context);
			};
			const timed = async (count: number) => {
				await sleep(BETWEEN_BURSTS_MS);
				const startedAt = performance.now();
				await Promise.all(Array.from({ length: count }, poll));
				return Math.round(performance.now() - startedAt);
			};
			const alone: number[] = [];
			const burst: number[] = [];
			for (let at = 0; at < runs; at++) {
				alone.push(await timed(1));
				burst.push(await timed(WORKFLOWS));
				log(
					`P10 ${replyDelayMs} ms run ${at + 1}/${runs}: alone ${alone[at]} ms, ten ${burst[at]} ms`,
				);
			}
			const [aloneMs, burstMs] = [figures(alone, 'ms'), figures(burst, 'ms')];
			const ratio = round(burstMs.median / aloneMs.median, 1);
			perReplyDelay.push({ replyDelayMs, alone: aloneMs, burst: burstMs, ratio });
		} finally {
			await sandbox.stop();
		}
	}
	return { workflows: WORKFLOWS, perReplyDelay };
}
