// The README's tables of operations and trigger events list what the nodes define: every one, in the nodes' order.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { TRIGGER_EVENTS } from '../../../nodes/SvcChat/trigger/description';

const README = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');

const options = (properties: INodeProperties[], name: string) =>
	properties.filter((p) => p.name === name).flatMap((p) => p.options as INodePropertyOptions[]);

const trigger = new SvcChatTrigger().description.properties;
/** The events of 'Trigger On', in the order the editor lists them. */
const events = options(trigger, 'emit');

/** The README's one-line text of an event: its one definition's `emits` (also the option's description and its notice's start). */
const summaryOf = (event: INodePropertyOptions): string =>
	TRIGGER_EVENTS.find(({ value }) => value === event.value)?.emits ?? '';

const action = new SvcChat().description.properties;
/** The actions as the nodes panel names them, resource by resource, each resource's operations in their order. */
const actions = options(action, 'resource').flatMap((resource) =>
	action
		.filter(
			(p) =>
				p.name === 'operation' &&
				(p.displayOptions?.show?.resource as string[] | undefined)?.includes(
					String(resource.value),
				),
		)
		.flatMap((p) => (p.options as INodePropertyOptions[]).map((operation) => operation.action)),
);

/** The rows of the table under `## <heading>`, as their cells. */
function tableUnder(markdown: string, heading: string): string[][] {
	const section = markdown.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
	if (!section) throw new Error(`README.md has no "## ${heading}" section`);
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

/** What the events table under `heading` gets wrong against the options: names or order, then each event's text. */
function eventProblems(markdown: string, heading = 'Trigger events'): string[] {
	const rows = tableUnder(markdown, heading);
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
	expect(eventProblems(README)).toEqual([]);
});

test('an events table that leaves out an event, reorders two, or changes a text does not pass', () => {
	const missing = README.replace(/^\| New Rating .*\n/m, '');
	expect(eventProblems(missing)).toEqual([expect.stringContaining('the options are')]);
	const [first, second] = README.match(/^\| (Every Change|Finished Chats Only) .*$/gm)!;
	const reordered = README.replace(first, '@').replace(second, first).replace('@', second);
	expect(eventProblems(reordered)).toEqual([expect.stringContaining('the options are')]);
	const changed = README.replace(
		'Each rating once, when it appears',
		'Each rating, when it appears',
	);
	expect(eventProblems(changed)).toEqual([expect.stringMatching(/^New Rating: /)]);
});

test("docs/trigger.md's table repeats each event's text and what its Fetch Test Event shows", () => {
	const page = readFileSync(path.resolve(__dirname, '../../../docs/trigger.md'), 'utf8');
	expect(eventProblems(page, 'Events')).toEqual([]);
	const samples = tableUnder(page, 'Events').map(([, , sample]) => sample);
	expect(samples).toEqual(
		events.map((event) => TRIGGER_EVENTS.find(({ value }) => value === event.value)?.sample),
	);
});

test('the README lists every action by its name in the nodes panel, in the order of the node', () => {
	expect(actions).toHaveLength(12);
	expect(tableUnder(README, 'Operations').map(([name]) => name)).toEqual(actions);
});

// Issue 65: the texts a new user checks against what they see.
test("the credential table's first row is what n8n's credential modal shows, and npm start's --port is given", () => {
	// n8n-editor-ui, credentialEdit.credentialConfig.connectionTestedSuccessfully (2.41.1 and 1.123.81 alike).
	const credentialTable = tableUnder(README, 'Credentials');
	expect(credentialTable[0]).toEqual(['Connection tested successfully', 'Ready.']);
	// The option as the demo's own usage names it.
	const demo = readFileSync(path.resolve(__dirname, '../../../scripts/demo.ts'), 'utf8');
	expect(demo).toMatch(/^ {2}--port N {8}n8n's port \(default 5678\)$/m);
	expect(README).toContain('http://127.0.0.1:5678; another port: `npm start -- --port 5679`');
});
