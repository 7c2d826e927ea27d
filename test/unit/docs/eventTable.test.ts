// The README's table of trigger events says what the trigger's own 'Trigger On' options say: every event, in order.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';

const README = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');

const events = (
	new SvcChatTrigger().description.properties.find((p) => p.name === 'emit') as INodeProperties
).options as INodePropertyOptions[];

/**
 * THE ONE PLACE TO SWITCH: the README's one-line text of an event, from the event's definition in the code.
 * Today that is the option's description. Once each event has its one definition with a one-line summary (issue 59),
 * return that summary here instead, and the README's table must then repeat it.
 */
const summaryOf = (event: INodePropertyOptions): string => event.description ?? '';

/** The rows of the table under `## Trigger events`: [event, what it emits and when]. */
function eventTable(markdown: string): string[][] {
	const section = markdown.split(/^## /m).find((part) => part.startsWith('Trigger events\n'));
	if (!section) throw new Error('README.md has no "## Trigger events" section');
	return section
		.split('\n')
		.filter((line) => line.startsWith('|'))
		.slice(2) // the header and its separator
		.map((line) =>
			line
				.slice(1, -1)
				.split('|')
				.map((cell) => cell.trim()),
		);
}

/** What the table gets wrong against the options: names or order, then each event's text. */
function problems(markdown: string): string[] {
	const rows = eventTable(markdown);
	const names = rows.map(([name]) => name).join(', ');
	const expected = events.map((event) => event.name).join(', ');
	if (names !== expected) return [`events ${names}; the options are ${expected}`];
	return rows.flatMap(([name, text], index) =>
		text === summaryOf(events[index])
			? []
			: [`${name}: "${text}" is not "${summaryOf(events[index])}"`],
	);
}

test('the README lists every event of Trigger On by its name, in the order of the options, with its text', () => {
	expect(events.length).toBeGreaterThanOrEqual(8);
	for (const event of events) expect(summaryOf(event)).not.toBe('');
	expect(problems(README)).toEqual([]);
});

test('a table that leaves out an event, reorders two, or changes a text does not pass', () => {
	const missing = README.replace(/^\| New Rating .*\n/m, '');
	expect(problems(missing)).toEqual([expect.stringContaining('the options are')]);
	const [first, second] = README.match(/^\| (Every Change|Finished Chats Only) .*$/gm)!;
	const reordered = README.replace(first, '@').replace(second, first).replace('@', second);
	expect(problems(reordered)).toEqual([expect.stringContaining('the options are')]);
	const changed = README.replace(
		'Each rating once, when it appears',
		'Each rating, when it appears',
	);
	expect(problems(changed)).toEqual([expect.stringMatching(/^New Rating: /)]);
});
