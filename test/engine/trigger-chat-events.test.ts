// New Rating and Missed Chat on n8n's engine, both lines, poll by poll: each once across pages, redeliveries and a failure.
import type { IDataObject } from 'n8n-workflow';

import type { Chat, ChatMessage, Rate } from '../../nodes/SvcChat/types';
import { FLAVOURS } from '../../scripts/runtime';
import { ISO_UTC, sandboxAllChats } from '../e2e/environment';
import { useEngine } from '../harness/engine';
import { publishTrigger, type PublishedTrigger } from './publishedTrigger';

/** Chats rated at once: more than a page (100), and more than the rating trigger's Max Chats per Poll. */
const RATED_AT_ONCE = 120;
/** The rating trigger's workflow Timezone, which its Transcript's times are in: not n8n's default. */
const TIMEZONE = 'Asia/Tokyo';
const CHATS_PATH = '/api/v2/chats';

describe.each([FLAVOURS['n8n-2'], FLAVOURS['n8n-1']])(
	'New Rating and Missed Chat on $name',
	(flavour) => {
		// A few more chats than RATED_AT_ONCE, each with an operator or not.
		const env = useEngine(flavour, { seed: 25, chats: RATED_AT_ONCE + 10 });
		let rating: PublishedTrigger;
		let missed: PublishedTrigger;
		let chats: Chat[];
		/** Every rating the scenario gave, as the sandbox stored it, with its chat's id. */
		const given: Array<Rate & { chat_id: Chat['id'] }> = [];
		/** Every item New Rating emitted, poll after poll. */
		const ratingItems: IDataObject[] = [];

		beforeAll(async () => {
			({ chats } = await sandboxAllChats(env.sandbox));
			// Ratings 1 to 2 with the Transcript, two polls for RATED_AT_ONCE chats; missed chats raw. Both from Now.
			rating = publishTrigger(
				env,
				'Bad ratings',
				{
					emit: 'newRating',
					ratings: { range: { from: 1, to: 2 } },
					chatOutput: 'transcript',
					options: { maxChatsPerPoll: 100 },
				},
				{ timezone: TIMEZONE },
			);
			missed = publishTrigger(env, 'Missed chats', { emit: 'missedChat', chatOutput: 'raw' });
		});

		/** What one call reads of GET /chats, and its result. */
		async function chatReads<T>(poll: () => Promise<T>) {
			const log = () => env.sandbox.control.requestLog().filter(({ path }) => path === CHATS_PATH);
			const before = log().length;
			const result = await poll();
			return { result, reads: log().length - before };
		}

		/** A poll of New Rating that emits: its items, kept with the others. */
		async function newRatings() {
			const items = await rating.emits();
			ratingItems.push(...items);
			return items;
		}

		/** Rates a chat through the sandbox, by its own operator, and records the rating the sandbox stored. */
		function rate(chat: Chat, value: number, createdAt?: string) {
			const stored = env.sandbox.control.rateChat(chat.id, {
				rate: value,
				operator_id: typeof chat.operator_id === 'number' ? chat.operator_id : 1,
				created_at: createdAt,
			});
			given.push({ ...stored.rates!.at(-1)!, chat_id: chat.id });
		}

		/** The items New Rating must emit for these ratings: those of 1 or 2. */
		const expectedRatings = (ratings = given) =>
			ratings
				.filter(({ rate }) => rate <= 2)
				.map(({ chat_id, rate, operator_id, created_at }) => ({
					chat_id,
					rating: rate,
					operator_id,
					rated_at: created_at,
				}));
		const ratingKeys = (items: IDataObject[]) =>
			items
				.map(({ chat_id, rating, operator_id, rated_at }) => ({
					chat_id,
					rating,
					operator_id,
					rated_at,
				}))
				.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

		test('activation: both catch up to the present and emit nothing; the seeded ratings are older than their start', async () => {
			expect(chats.length).toBeGreaterThan(RATED_AT_ONCE);
			expect(chats.some((chat) => chat.rates?.some(({ rate }) => rate <= 2))).toBe(true);
			for (const trigger of [rating, missed]) {
				expect(await trigger.poll()).toEqual({ emitted: null, run: null });
				// n8n saved where the first poll caught up to, as it started the trigger.
				expect(trigger.savedState()).toMatchObject({ startedFrom: 'now', catchingUp: false });
				await trigger.quiet(2);
			}
		});

		test('ratings of 120 chats at once, over two polls and two pages: each rating of 1 or 2 once, with its Transcript', async () => {
			const equalAt = new Date().toISOString();
			// One synchronous loop in this process: no poll sees part of it. The first chat gets two equal ratings.
			chats.slice(0, RATED_AT_ONCE).forEach((chat, index) => rate(chat, (index % 5) + 1, equalAt));
			rate(chats[0], 1, equalAt);
			// Max Chats per Poll 100: the first poll reads one page, the 100 chats changed first (the first chat changed
			// last); the next one the rest.
			const first = await chatReads(newRatings);
			expect(first.reads).toBe(1);
			const firstHundred = new Set(chats.slice(1, 101).map(({ id }) => id));
			expect(ratingKeys(first.result)).toEqual(
				ratingKeys(expectedRatings(given.filter(({ chat_id }) => firstHundred.has(chat_id)))),
			);
			const rest = await newRatings();
			expect(rest.length).toBeGreaterThan(0);
			await rating.quiet();
			expect(ratingKeys(ratingItems)).toEqual(ratingKeys(expectedRatings()));
			expect(ratingItems.filter(({ chat_id }) => chat_id === chats[0].id)).toHaveLength(2);

			const operators = new Map(
				env.sandbox.control.getOperators().map(({ id, full_name }) => [id, full_name]),
			);
			for (const item of ratingItems) {
				expect(item.detected_at).toMatch(ISO_UTC);
				// The rated operator by name, from the poll's one GET /operators (shared with the Transcript).
				expect(item.operator_name).toBe(operators.get(item.operator_id as number));
				const chat = env.sandbox.control.getChat(item.chat_id as Chat['id'])!;
				const { transcript, ...record } = item.chat as IDataObject & { transcript: string };
				expect(record).toMatchObject({
					id: String(chat.id),
					message_count: chat.messages?.length ?? 0,
				});
				const lines = transcript.split('\n');
				expect(lines[0]).toBe(`Chat ${String(chat.id)}, times in ${TIMEZONE}`);
				expect(lines).toHaveLength(Math.max(1, chat.messages?.length ?? 0) + 1);
				(chat.messages ?? []).forEach((message: ChatMessage, index) => {
					if (message.kind === 'operator' && operators.has(message.operator_id as number))
						expect(lines[index + 1]).toContain(
							`] ${operators.get(message.operator_id as number)} (operator): `,
						);
				});
			}
			// Ratings of 3 to 5 were given too: the filter left them out.
			expect(given.filter(({ rate }) => rate > 2).length).toBeGreaterThan(0);
			// Missed Chat has no Max Chats per Poll: one poll reads both pages of the rated chats, and none was missed.
			expect(await chatReads(async () => await missed.quiet(1))).toEqual({
				result: undefined,
				reads: 2,
			});
			await missed.quiet();
		});

		test('a rated chat delivered again for a message or a closing repeats no rating; a new one, even an equal one, comes alone', async () => {
			const cursor = rating.staticData().cursor;
			env.sandbox.control.updateChat(chats[0].id);
			env.sandbox.control.closeChat(chats[1].id);
			await rating.quiet();
			await missed.quiet();
			// The polls read both chats again: the cursor moved past them.
			expect(rating.staticData().cursor).not.toBe(cursor);
			// The third rating of 1 at the same time in the first chat is a rating of its own.
			const [first] = given;
			const before = given.length;
			rate(chats[0], 1, first.created_at);
			rate(chats[1], 2);
			expect(ratingKeys(await newRatings())).toEqual(
				ratingKeys(expectedRatings(given.slice(before))),
			);
			await rating.quiet();
			await missed.quiet();
			expect(ratingKeys(ratingItems)).toEqual(ratingKeys(expectedRatings()));
		});

		test('missed chats: each once, with the contact from its fields, from a contacts message, or none', async () => {
			const added = (['fields', 'message', 'none'] as const).map((contact) =>
				env.sandbox.control.addMissedChat(contact),
			);
			const items = await missed.emits();
			const contactOf = (chat: Chat, member: 'name' | 'email' | 'phone') => {
				const message = [...(chat.messages ?? [])].reverse().find(({ kind }) => kind === 'contacts')
					?.message as Record<string, string> | undefined;
				return chat.visitor?.fields?.[member] ?? message?.[member] ?? null;
			};
			expect(items).toEqual(
				added.map((chat) => ({
					chat_id: chat.id,
					closed_at: chat.state_history!.at(-1)!.at,
					visitor_name: contactOf(chat, 'name'),
					visitor_email: contactOf(chat, 'email'),
					visitor_phone: contactOf(chat, 'phone'),
					detected_at: expect.stringMatching(ISO_UTC) as string,
					chat,
				})),
			);
			// The contacts: in the fields, only in a message, nowhere.
			expect(items.map(({ visitor_email }) => typeof visitor_email)).toEqual([
				'string',
				'string',
				'object',
			]);
			expect(added[1].visitor?.fields?.email).toBeUndefined();
			await missed.quiet();
			await rating.quiet();
			// Closed again, a missed chat is delivered again, and not emitted again.
			const cursor = missed.staticData().cursor;
			env.sandbox.control.closeChat(added[0].id);
			await missed.quiet();
			expect(missed.staticData().cursor).not.toBe(cursor);
		});

		test('a failed poll keeps the place: the rating and the missed chat after it come once, at the next poll', async () => {
			const served500 = () =>
				env.sandbox.control
					.requestLog()
					.filter(({ path, status }) => path === CHATS_PATH && status === 500).length;
			const faultsBefore = served500();
			// The next poll of each trigger gets an error page (a 500, not retried) on its first request.
			env.sandbox.control.injectFault({ kind: 'html', path: CHATS_PATH, count: 2 });
			const before = given.length;
			rate(chats[2], 1);
			const chat = env.sandbox.control.addMissedChat('fields');
			for (const trigger of [rating, missed]) {
				const place = trigger.staticData();
				const failed = await trigger.poll();
				// The node's error, which n8n stores as the poll's failed execution.
				expect(failed).toEqual({ emitted: null, run: null, error: expect.any(Error) });
				expect(failed.error!.message).toMatch(/500/);
				expect(trigger.staticData()).toEqual(place);
			}
			expect(served500() - faultsBefore).toBe(2);
			// Nothing was lost or repeated.
			expect(ratingKeys(await newRatings())).toEqual(
				ratingKeys(expectedRatings(given.slice(before))),
			);
			expect(await missed.emits()).toEqual([
				expect.objectContaining({ chat_id: chat.id, visitor_email: chat.visitor?.fields?.email }),
			]);
			await rating.quiet();
			await missed.quiet();
			expect(ratingKeys(ratingItems)).toEqual(ratingKeys(expectedRatings()));
		});
	},
);
