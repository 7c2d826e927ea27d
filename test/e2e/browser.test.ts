// Browser e2e: the editor as users meet it (node creator, every node panel, Execute step, credential modal, trigger test).
import fs from 'node:fs';
import path from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';
import { errors, type Locator } from 'playwright-core';

import { SvcApi } from '../../credentials/SvcApi.credentials';
import type { Chat, Department } from '../../nodes/SvcChat/types';
import { SVC_HTTP_ERRORS } from '../../nodes/SvcChat/transport/errors';
import { normalizeBaseUrl } from '../../nodes/SvcChat/transport/baseUrl';
import { sandboxCredential, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import type { Workflow } from '../../scripts/n8n';
import { REPO_ROOT } from '../../scripts/runtime';
import {
	byTestId,
	editorApi,
	executeStep,
	launchBrowser,
	logIn,
	normalizeSpace,
	openEditorPage,
	openWorkflow,
	operationPanels,
	SCREENSHOTS_DIR,
	triggerEventPanels,
	waitForTexts,
	type Browser,
	type OperationPanel,
	type TriggerEventPanel,
} from './browser-harness';
import { sandboxGet, useE2eEnvironment } from './environment';

const OWNER = {
	email: 'browser-owner@example.com',
	password: 'Browser-e2e-2026',
	firstName: 'Browser',
	lastName: 'Owner',
};
const WORKFLOW_IDS = {
	editor: 'svcBrowserEditor',
	departments: 'svcBrowserDepts',
	trigger: 'svcBrowserTrigger',
	waiting: 'svcBrowserWaiting',
	setStatus: 'svcBrowserSetStatus',
	chatPicker: 'svcBrowserChatPick',
};
/** Named as n8n names a node added from the node creator (after its action); no operator has the email. */
const SET_STATUS = { name: 'Set operator status', email: 'browser-nobody@svc.test' };
const TRIGGER_NAME = 'Svc Chat Trigger';
/** A stored cursor the test event must leave alone: a test run never moves the trigger. */
const STORED_TRIGGER_STATE = { startedFrom: 'beginning', cursor: '1000', catchingUp: false };

// Read from the build n8n loads, so other issues' relabelling needs no change here.
const distNode = (file: string, className: string): INodeTypeDescription => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const module = require(path.join(REPO_ROOT, 'dist/nodes/SvcChat', file)) as Record<
		string,
		new () => { description: INodeTypeDescription }
	>;
	return new module[className]().description;
};

const credentials = { svcApi: { id: SANDBOX_CREDENTIAL.id, name: SANDBOX_CREDENTIAL.name } };
const workflows: Workflow[] = [
	{
		id: WORKFLOW_IDS.editor,
		name: 'Browser: node creator',
		nodes: [
			{
				id: 'e1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
		],
		connections: {},
	},
	{
		id: WORKFLOW_IDS.departments,
		name: 'Browser: departments',
		nodes: [
			{
				id: 'd1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'd2',
				name: 'Departments',
				type: 'n8n-nodes-svc.svcChat',
				typeVersion: 1,
				position: [300, 0],
				parameters: { resource: 'department', operation: 'getMany' },
				credentials,
			},
		],
		connections: { Start: { main: [[{ node: 'Departments', type: 'main', index: 0 }]] } },
	},
	{
		id: WORKFLOW_IDS.trigger,
		name: 'Browser: trigger',
		nodes: [
			{
				id: 't1',
				name: TRIGGER_NAME,
				type: 'n8n-nodes-svc.svcChatTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
				credentials,
			},
		],
		connections: {},
		staticData: { [`node:${TRIGGER_NAME}`]: STORED_TRIGGER_STATE },
	},
	{
		id: WORKFLOW_IDS.waiting,
		name: 'Browser: visitor waiting',
		nodes: [
			{
				id: 'w1',
				name: TRIGGER_NAME,
				type: 'n8n-nodes-svc.svcChatTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: { emit: 'visitorWaiting' },
				credentials,
			},
		],
		connections: {},
	},
	{
		id: WORKFLOW_IDS.setStatus,
		name: 'Browser: set status of an unknown operator',
		nodes: [
			{
				id: 's1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 's2',
				name: SET_STATUS.name,
				type: 'n8n-nodes-svc.svcChat',
				typeVersion: 2,
				position: [300, 0],
				parameters: {
					resource: 'operator',
					operation: 'setStatus',
					email: { __rl: true, mode: 'email', value: SET_STATUS.email },
					status: 'online',
				},
				credentials,
			},
		],
		connections: { Start: { main: [[{ node: SET_STATUS.name, type: 'main', index: 0 }]] } },
	},
	{
		id: WORKFLOW_IDS.chatPicker,
		name: 'Browser: pick a chat',
		nodes: [
			{
				id: 'c1',
				name: 'Get a chat',
				type: 'n8n-nodes-svc.svcChat',
				typeVersion: 2,
				position: [0, 0],
				parameters: { resource: 'chat', operation: 'get' },
				credentials,
			},
			{
				id: 'c2',
				name: 'Pick an operator',
				type: 'n8n-nodes-svc.svcChat',
				typeVersion: 2,
				position: [300, 0],
				parameters: { resource: 'operator', operation: 'setStatus' },
				credentials,
			},
		],
		connections: {},
	},
];

/** The README's pictures: into docs/ when SVC_UPDATE_DOCS_SCREENSHOTS=1, else beside the other screenshots (git stays clean). */
function readmePicture(name: string): string {
	const folder =
		process.env.SVC_UPDATE_DOCS_SCREENSHOTS === '1'
			? path.join(REPO_ROOT, 'docs')
			: SCREENSHOTS_DIR;
	fs.mkdirSync(folder, { recursive: true });
	return path.join(folder, name);
}

let browser: Browser;
let svcChat: INodeTypeDescription;
let panels: OperationPanel[];
let triggerEvents: TriggerEventPanel[];

// Declared first, so the browser closes before the environment is disposed.
afterAll(async () => await browser?.close());

// The owner is set before n8n starts: importing the credential starts it, and it keeps the owner it started with.
const env = useE2eEnvironment(
	{ sandbox: { seed: 5, chats: 20 }, owner: OWNER },
	async (started) => {
		svcChat = distNode('SvcChat.node.js', 'SvcChat');
		panels = operationPanels(svcChat);
		triggerEvents = triggerEventPanels(distNode('SvcChatTrigger.node.js', 'SvcChatTrigger'));
		await started.n8n.importWorkflows(workflows);
		await started.n8n.start();
		browser = await launchBrowser();
		await logIn(browser.page, started.n8n.baseUrl, OWNER);
	},
);

async function searchNodeCreator(text: string): Promise<void> {
	// The test id sits on the input itself in n8n 2.x.
	const bar = byTestId(browser.page, 'node-creator-search-bar');
	await bar.first().waitFor();
	const input =
		(await bar.first().evaluate((element) => element.tagName)) === 'INPUT'
			? bar.first()
			: bar.locator('input').first();
	await input.fill(text);
}

/** Opens the node creator from the canvas "+" and shows the Svc Chat entry's actions. */
async function openSvcChatActions(): Promise<void> {
	const { page } = browser;
	await byTestId(page, 'node-creator-plus-button').click();
	await searchNodeCreator('Svc');
	await byTestId(page, 'node-creator-item-name')
		.filter({ hasText: /^Svc Chat$/ })
		.first()
		.click();
	await byTestId(page, 'node-creator').getByText('Actions (', { exact: false }).first().waitFor();
}

test('1. the node creator lists Svc Chat with its own description and every action under its resource', async () => {
	const { page } = browser;
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.editor);
	await byTestId(page, 'node-creator-plus-button').click();
	await searchNodeCreator('Svc');
	const entry = byTestId(page, 'item-iterator-item').filter({
		has: byTestId(page, 'node-creator-item-name').filter({ hasText: /^Svc Chat$/ }),
	});
	await entry.first().waitFor();
	await browser.screenshot('1-search-svc');
	// n8n merges the trigger into the app's entry and shows the trigger's description there (see nodeDescriptions.ts).
	const shownDescription = normalizeSpace(
		(
			await waitForTexts(byTestId(entry.first(), 'node-creator-item-description'), [
				svcChat.description,
			])
		).join(' '),
	);
	expect(shownDescription.startsWith(svcChat.description)).toBe(true);
	// …and says what the trigger offers: chats, ratings, missed chats and operators (issue 51).
	expect(shownDescription).toBe(
		normalizeSpace(distNode('SvcChatTrigger.node.js', 'SvcChatTrigger').description),
	);
	// …and names every event of Trigger On, Visitor Waiting included (issue 59).
	for (const { name } of triggerEvents) expect(shownDescription).toContain(name);

	await byTestId(page, 'node-creator-item-name')
		.filter({ hasText: /^Svc Chat$/ })
		.first()
		.click();
	const creator = byTestId(page, 'node-creator');
	// The list is read (and pictured) once it is complete: the count, every heading and every action.
	const lines = await waitForTexts(creator, [
		`Actions (${panels.length})`,
		...new Set(panels.map((panel) => `${panel.resourceName} actions`)),
		...panels.map((panel) => panel.action),
		/Triggers \(\d+\)/,
	]);
	await browser.screenshot('1-actions');
	await creator.screenshot({ path: readmePicture('editor-actions.png') });
	// The details header describes the node, not the trigger.
	const header = lines.slice(
		0,
		lines.findIndex((line) => line.startsWith('Actions (')),
	);
	expect(header.some((line) => line.startsWith(svcChat.description))).toBe(true);

	expect(lines).toContain(`Actions (${panels.length})`);
	// Each action sits under its resource's heading, before the next heading.
	for (const panel of panels) {
		const heading = lines.findIndex(
			(line) => line.toLowerCase() === `${panel.resourceName} actions`.toLowerCase(),
		);
		expect({ resource: panel.resourceName, heading }).toEqual({
			resource: panel.resourceName,
			heading: expect.any(Number) as number,
		});
		expect(heading).toBeGreaterThanOrEqual(0);
		const nextHeading = lines.findIndex((line, index) => index > heading && /actions$/i.test(line));
		const position = lines.indexOf(panel.action, heading);
		expect({
			action: panel.action,
			underItsHeading: position > heading && (nextHeading < 0 || position < nextHeading),
		}).toEqual({
			action: panel.action,
			underItsHeading: true,
		});
	}
	expect(lines.some((line) => /^Triggers \(\d+\)$/.test(line))).toBe(true);
	expect(lines.join('\n')).not.toMatch(/custom api call/i);
	await page.keyboard.press('Escape');
});

/** A panel's fields and a dropdown's options render with it; this only bounds how long a missing one is waited for. */
const FIELDS_TIMEOUT_MS = 15_000;

const resourceNames = (): string[] => [...new Set(panels.map((panel) => panel.resourceName))];

/** The Operation dropdown's choices for a resource, as the description names them. */
function operationNames(resource: string): string[] {
	const operation = svcChat.properties.find(
		(property) =>
			property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
	);
	return ((operation?.options ?? []) as Array<{ name: string }>).map((option) => option.name);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The line under a canvas node's name: its subtitle (an element whose CSS-module class names it). */
async function canvasSubtitle(node: Locator): Promise<string> {
	const subtitle = node.locator('[class*="subtitle"]').first();
	await subtitle.waitFor({ timeout: FIELDS_TIMEOUT_MS });
	return normalizeSpace(await subtitle.innerText());
}

/** A picture of a canvas node with its name and subtitle, which the editor draws below the node's box. */
async function nodePicture(node: Locator, name: string): Promise<void> {
	const box = await node.boundingBox();
	if (!box) throw new Error(`${name}: the canvas node is not shown`);
	const clip = { x: box.x - 120, y: box.y - 30, width: box.width + 240, height: box.height + 110 };
	await browser.page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`), clip });
}

/** What step 2 found that issue 19 (Custom API Call, defaults that the editor flags) is about; asserted in 2b. */
const defaultsProblems: string[] = [];
let panelsChecked = 0;

test('2. every operation opens a panel with its fields and the credential selected', async () => {
	const { page } = browser;
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.editor);
	const problems: string[] = [];
	for (const panel of panels) {
		await openSvcChatActions();
		await byTestId(page, 'node-creator').getByText(panel.action, { exact: true }).click();
		const ndv = byTestId(page, 'ndv');
		await ndv.waitFor();
		const parameters = byTestId(ndv, 'node-parameters');
		await byTestId(parameters, 'parameter-input-operation').waitFor();
		await browser.screenshot(`2-${panel.resource}-${panel.operation}`);
		if (panel.resource === 'chat' && panel.operation === 'getMany') {
			await ndv.screenshot({ path: readmePicture('editor-node-panel.png') });
		}
		const credentialInput = byTestId(parameters, 'node-credentials-select')
			.locator('input')
			.first();
		// n8n selects the credential just after the panel opens; a wrong one is reported below, by name.
		await page
			.waitForFunction(
				({ input, name }) => (input as unknown as { value: string } | null)?.value === name,
				{ input: await credentialInput.elementHandle(), name: SANDBOX_CREDENTIAL.name },
				{ timeout: FIELDS_TIMEOUT_MS },
			)
			.catch((error: Error) => {
				if (!(error instanceof errors.TimeoutError)) throw error;
			});
		const selectedCredential = await credentialInput.inputValue();
		if (selectedCredential !== SANDBOX_CREDENTIAL.name)
			problems.push(`${panel.action}: credential "${selectedCredential}" selected`);
		const shownFields = await waitForTexts(parameters, panel.fields, FIELDS_TIMEOUT_MS).catch(
			(error: Error) => {
				problems.push(`${panel.action}: ${error.message}`);
				return [];
			},
		);
		const text = normalizeSpace(shownFields.join(' '));
		for (const field of panel.fields) {
			if (!text.includes(field)) problems.push(`${panel.action}: field "${field}" not shown`);
		}
		// The Resource and Operation dropdowns list real choices only.
		for (const dropdown of ['resource', 'operation']) {
			await byTestId(parameters, `parameter-input-${dropdown}`).click();
			const options = page.locator('[role="option"]:visible');
			const texts = await waitForTexts(
				options,
				dropdown === 'resource' ? resourceNames() : operationNames(panel.resource),
				FIELDS_TIMEOUT_MS,
			);
			if (texts.some((option) => /custom api call/i.test(option)))
				defaultsProblems.push(`${panel.action}: ${dropdown} offers "Custom API Call"`);
			await page.keyboard.press('Escape');
			await options.first().waitFor({ state: 'hidden' });
		}
		await byTestId(ndv, 'ndv-close-button').click();
		await ndv.waitFor({ state: 'hidden' });

		// The canvas marks a node with issues; its tooltip names the fields. Only fields the user must fill may be listed.
		const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${panel.action}"]`);
		// n8n names the node after its action: the subtitle under the name adds the resource and operation as their
		// dropdowns name them, in sentence case as the trigger's events (issues 42 and 51).
		const subtitle = await canvasSubtitle(node);
		const operationWords =
			panel.operationName.charAt(0) + panel.operationName.slice(1).toLowerCase();
		if (subtitle === panel.action || subtitle !== `${panel.resourceName}: ${operationWords}`)
			problems.push(`${panel.action}: canvas subtitle "${subtitle}"`);
		const marker = byTestId(node, 'node-issues');
		if (await marker.count()) {
			await marker.hover();
			// The tooltip is complete once it names a field, in quotes (written as escapes: Playwright's selector
			// quoting breaks on a pattern holding both quote characters).
			const tooltip = normalizeSpace(
				(
					await waitForTexts(
						page.getByText('Issues', { exact: true }).locator('xpath=..').last(),
						[/[\u0022\u0027][^\u0022\u0027]+[\u0022\u0027]/],
						FIELDS_TIMEOUT_MS,
					).catch((error: Error) => [error.message])
				).join(' '),
			);
			const flagged = panel.fields.filter(
				(field) => tooltip.includes(`"${field}"`) || tooltip.includes(`'${field}'`),
			);
			const unexpected = flagged.filter((field) => !panel.fieldsToFill.includes(field));
			if (unexpected.length || !flagged.length)
				defaultsProblems.push(`${panel.action}: issue marker on a fresh node: ${tooltip}`);
			await page.mouse.move(0, 0);
		}
	}
	panelsChecked = panels.length;
	await browser.screenshot('2-canvas');
	expect(problems).toEqual([]);
});

test('2b. no panel offers "Custom API Call", and a fresh node flags only the fields the user must fill in', () => {
	// Step 2 collects these; an empty list means something only if it checked every panel.
	expect(panelsChecked).toBe(panels.length);
	expect(defaultsProblems).toEqual([]);
});

test('3. Execute step on Department > Get Many shows the departments of the sandbox', async () => {
	const { page } = browser;
	const departments = await sandboxGet<{ departments: Department[] } | Department[]>(
		env.sandbox,
		'departments',
	);
	const expected = Array.isArray(departments) ? departments : departments.departments;
	expect(expected.length).toBeGreaterThan(0);
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.departments);
	await byTestId(page, 'canvas-node').filter({ hasText: 'Departments' }).dblclick();
	const ndv = byTestId(page, 'ndv');
	// "3 items" shows before the table's cells: wait for the departments themselves.
	const text = (
		await executeStep(ndv, [
			`${expected.length} item`,
			...expected.map((department) => department.name),
		])
	).join('\n');
	await browser.screenshot('3-execute-step-departments');
	for (const department of expected) expect(text).toContain(department.name);
	await byTestId(ndv, 'ndv-close-button').click();
});

test('5. Fetch Test Event shows recent chats and leaves the stored cursor alone', async () => {
	const { page } = browser;
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.trigger);
	// The trigger keeps n8n's default name; its subtitle adds the event.
	const triggerNode = byTestId(page, 'canvas-node').filter({ hasText: TRIGGER_NAME });
	expect(await canvasSubtitle(triggerNode)).toBe('Every change');
	const before = await editorApi<{ staticData: unknown }>(
		page,
		`workflows/${WORKFLOW_IDS.trigger}`,
	);
	expect(before.staticData).toEqual({ [`node:${TRIGGER_NAME}`]: STORED_TRIGGER_STATE });
	await byTestId(page, 'canvas-node').filter({ hasText: TRIGGER_NAME }).dblclick();
	const ndv = byTestId(page, 'ndv');
	const recentIds = await recentChatIds();
	// The item count shows before the items: wait for a chat id too.
	const text = (
		await executeStep(ndv, [/\d+ items?/, new RegExp(recentIds.map(escapeRegExp).join('|'))])
	).join('\n');
	await browser.screenshot('5-fetch-test-event');
	const shownIds = recentIds.filter((id) => text.includes(id));
	expect(shownIds.length).toBeGreaterThan(0);
	// The sandbox holds more than 5 chats: the test event looks back until it has 5 (issue 42).
	expect(recentIds.length).toBeGreaterThan(5);
	expect(text).toMatch(/\b5 items\b/);
	await byTestId(ndv, 'ndv-close-button').click();
	const after = await editorApi<{ staticData: unknown }>(page, `workflows/${WORKFLOW_IDS.trigger}`);
	expect(after.staticData).toEqual(before.staticData);
});

test('5b. Visitor Waiting: Fetch Test Event shows the waits just begun first, not the oldest', async () => {
	const { page } = browser;
	const older = env.sandbox.control.visitorWaits();
	await new Promise((resolve) => setTimeout(resolve, 50));
	const newer = env.sandbox.control.visitorWaits();
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.waiting);
	await byTestId(page, 'canvas-node').filter({ hasText: TRIGGER_NAME }).dblclick();
	const ndv = byTestId(page, 'ndv');
	const ids = [newer, older].map((chat) => String(chat.id));
	const lines = await executeStep(ndv, [/\d+ items?/, ...ids]);
	await browser.screenshot('5b-visitor-waiting');
	// Each item's row starts with its chat_id, the first column.
	const rows = ids.map((id) => lines.findIndex((line) => line.startsWith(`${id} `)));
	expect(rows[0]).toBeGreaterThanOrEqual(0);
	expect(rows[0]).toBeLessThan(rows[1]);
	await byTestId(ndv, 'ndv-close-button').click();
});

/** The Svc Chat entry of the node creator with its Triggers section open (closed at first under a workflow that has a trigger). */
async function openSvcChatTriggers(): Promise<Locator> {
	await openSvcChatActions();
	const creator = byTestId(browser.page, 'node-creator');
	const section = byTestId(creator, 'node-creator-category-item').filter({
		hasText: /Triggers \(\d+\)/,
	});
	await section.first().waitFor();
	// The section and its events render together: events not shown beside it mean it is closed.
	if (!(await creator.getByText(triggerEvents[0].action, { exact: true }).isVisible()))
		await section.first().click();
	return creator;
}

test("6. the node creator lists the trigger's 8 events, and each event's panel shows its own fields and its own notice only", async () => {
	const { page } = browser;
	const event = (value: string) => {
		const found = triggerEvents.find((panel) => panel.event === value);
		if (!found) throw new Error(`Svc Chat Trigger has no event ${value}`);
		return found;
	};
	const labels = (value: string) => event(value).fields.map((field) => field.label);
	// What the build describes, so the browser checks below stand on the right fields.
	expect(labels('operatorStatusChanged')).toEqual(
		expect.arrayContaining(['Operators', 'To Status', 'Roles']),
	);
	expect(labels('operatorAvailabilityChanged')).toEqual(
		expect.arrayContaining(['Available Statuses', 'Roles']),
	);
	expect(labels('everyChange')).toEqual(expect.arrayContaining(['Start From', 'Output']));
	expect(labels('newRating')).toEqual(
		expect.arrayContaining(['Start From', 'Ratings', 'Chat Output']),
	);
	expect(labels('missedChat')).toEqual(expect.arrayContaining(['Start From', 'Chat Output']));
	expect(labels('visitorWaiting')).toEqual(
		expect.arrayContaining(['Wait Longer Than (Minutes)', 'Start From', 'Chat Output']),
	);
	for (const operatorEvent of ['operatorStatusChanged', 'operatorAvailabilityChanged'])
		for (const chatOnly of ['Start From', 'Output', 'Chat Output'])
			expect(labels(operatorEvent)).not.toContain(chatOnly);
	// Chat Output and Ratings belong to the two new events only, and Output to the other chat events.
	for (const { event: value } of triggerEvents) {
		const own =
			{
				newRating: ['Ratings', 'Chat Output'],
				missedChat: ['Chat Output'],
				visitorWaiting: ['Wait Longer Than (Minutes)', 'Chat Output'],
			}[value] ?? [];
		for (const label of ['Ratings', 'Wait Longer Than (Minutes)', 'Chat Output'])
			expect({ value, label, shown: labels(value).includes(label) }).toEqual({
				value,
				label,
				shown: own.includes(label),
			});
	}
	expect(triggerEvents).toHaveLength(8);

	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.editor);
	const creator = await openSvcChatTriggers();
	const heading = `Triggers (${triggerEvents.length})`;
	const lines = await waitForTexts(creator, [
		heading,
		...triggerEvents.map((panel) => panel.action),
	]);
	// The operator events come last, below the fold: brought into the picture.
	await creator
		.getByText(triggerEvents[triggerEvents.length - 1].action, { exact: true })
		.scrollIntoViewIfNeeded();
	await browser.screenshot('6-trigger-events');
	// Every event, the chat ones and the operator ones alike, is listed after the Triggers heading.
	expect(lines).toContain(heading);
	for (const panel of triggerEvents)
		expect({
			action: panel.action,
			underTriggers: lines.indexOf(panel.action) > lines.indexOf(heading),
		}).toEqual({ action: panel.action, underTriggers: true });
	await page.keyboard.press('Escape');

	// A chat event first: its panel shows the chat fields and proves the checks of fields that must be absent.
	// Every event: New Chats Only and Finished Chats Only have their own notices too (issue 59).
	const opened = [
		event('everyChange'),
		event('newChats'),
		event('finishedChats'),
		event('newRating'),
		event('missedChat'),
		event('visitorWaiting'),
		event('operatorStatusChanged'),
		event('operatorAvailabilityChanged'),
	];
	const everyField = new Map(
		triggerEvents.flatMap((panel) => panel.fields).map((field) => [field.name, field]),
	);
	const problems: string[] = [];
	const noticesShown = new Map<string, string | undefined>();
	for (const panel of opened) {
		await openSvcChatTriggers();
		await creator.getByText(panel.action, { exact: true }).click();
		const ndv = byTestId(page, 'ndv');
		await ndv.waitFor();
		const parameters = byTestId(ndv, 'node-parameters');
		const eventInput = byTestId(parameters, 'parameter-input-emit');
		await eventInput.waitFor();
		// The dropdown shows its choice in an input or as text, depending on n8n's version.
		const chosen = await eventInput.evaluate(
			(element) =>
				(element.querySelector('input') as { value?: string } | null)?.value ||
				(element as unknown as { innerText: string }).innerText,
		);
		if (normalizeSpace(chosen) !== panel.name)
			problems.push(`${panel.action}: 'Trigger On' shows "${chosen}"`);
		const shownLines = await waitForTexts(
			parameters,
			panel.fields.map((field) => field.label),
			FIELDS_TIMEOUT_MS,
		).catch((error: Error): string[] => {
			problems.push(`${panel.action}: ${error.message}`);
			return [];
		});
		await browser.screenshot(`6-trigger-${panel.event}`);
		// Issue 65: the default minutes as typed, not "3.00".
		const waitInput = byTestId(parameters, 'parameter-input-waitLongerThan').locator('input');
		if (panel.event === 'visitorWaiting' && (await waitInput.inputValue()) !== '3')
			problems.push(`${panel.action}: 'Wait Longer Than' shows "${await waitInput.inputValue()}"`);
		if (panel.event === 'newRating')
			await ndv.screenshot({ path: readmePicture('editor-new-rating.png') });
		// 'Trigger On' first, then the event's notice and fields, as n8n's triggers put their event first (issue 42).
		const at = (text: string) =>
			shownLines.findIndex((line) => line === text || line.startsWith(`${text} `));
		const first = at('Trigger On');
		const notice = shownLines.findIndex((line) => line.includes('Fetch Test Event'));
		// The event's own notice, speaking of it only (issue 51): no two of the opened events share one.
		noticesShown.set(panel.event, shownLines[notice]);
		if (shownLines[notice] !== normalizeSpace(panel.notices.join(' ')))
			problems.push(`${panel.action}: the notice reads "${shownLines[notice]}"`);
		const fieldsBelow = panel.fields.filter((field) => field.label !== 'Trigger On');
		if (first < 0 || notice < first || fieldsBelow.some((field) => at(field.label) < first))
			problems.push(`${panel.action}: 'Trigger On' is not first: ${shownLines.join(' | ')}`);
		for (const field of panel.fields) {
			// A choice field is an input named after its parameter: the same test id is looked for below, and must be absent.
			if (
				['options', 'multiOptions'].includes(field.type) &&
				!(await byTestId(parameters, `parameter-input-${field.name}`).count())
			)
				problems.push(`${panel.action}: no input for "${field.label}"`);
		}
		const shownNames = new Set(panel.fields.map((field) => field.name));
		for (const field of everyField.values()) {
			if (shownNames.has(field.name)) continue;
			if (
				(await byTestId(parameters, `parameter-input-${field.name}`).count()) ||
				shownLines.includes(field.label)
			)
				problems.push(`${panel.action}: "${field.label}" is shown`);
		}
		await byTestId(ndv, 'ndv-close-button').click();
		await ndv.waitFor({ state: 'hidden' });
	}
	expect(problems).toEqual([]);
	expect(new Set(noticesShown.values()).size).toBe(opened.length);
});

async function recentChatIds(): Promise<string[]> {
	const page = await sandboxGet<{ chats: Chat[] }>(env.sandbox, 'chats?since=0');
	return page.chats.map((chat) => String(chat.id));
}

/** Waits for the credential test's verdict; n8n folds a failure's message under "More details". */
async function expectTestMessage(modal: Locator, message: string): Promise<void> {
	const details = modal.getByText('More details');
	const shown = modal.getByText(message, { exact: false }).first();
	await details.or(shown).first().waitFor({ timeout: 60_000 });
	if (await details.isVisible()) await details.click();
	await shown.waitFor({ timeout: 10_000 });
}

test('4. the credential modal tests the connection, shows the 401 and http:// refusals, and never shows the password', async () => {
	const { page } = browser;
	const sandboxPassword = sandboxCredential(env.sandbox).data.password;
	await openEditorPage(page, env.n8n.baseUrl, '/home/credentials');
	await page.getByText(SANDBOX_CREDENTIAL.name, { exact: true }).first().click();
	const modal = byTestId(page, 'editCredential-modal');
	await byTestId(modal, 'credentials-config-container-test-success').waitFor({ timeout: 60_000 });
	await browser.screenshot('4-credential-works');
	expect(await page.content()).not.toContain(sandboxPassword);
	await page.keyboard.press('Escape');

	// A new credential, as a user creates one.
	await openEditorPage(page, env.n8n.baseUrl, '/home/credentials/create');
	await byTestId(page, 'new-credential-type-select').click();
	await page.keyboard.type('Svc API');
	await byTestId(page, 'new-credential-type-select-option')
		.filter({ hasText: 'Svc API' })
		.first()
		.click();
	await byTestId(page, 'new-credential-type-button').click();
	await byTestId(modal, 'parameter-input-host').waitFor();
	const wrongPassword = 'Wrong-browser-pw-7310';
	await byTestId(modal, 'parameter-input-host').locator('input').fill(env.sandbox.host);
	await byTestId(modal, 'parameter-input-email').locator('input').fill('browser-nobody@svc.test');
	await byTestId(modal, 'parameter-input-password').locator('input').fill(wrongPassword);
	await byTestId(modal, 'credential-save-button').click();
	await expectTestMessage(modal, SVC_HTTP_ERRORS[401].message);
	await browser.screenshot('4-credential-401');

	// The transport refuses plain http:// to a host that is not local; the form says why as soon as such a host is typed,
	// and its Test says it too. Nothing is sent either way.
	const nonLoopback = 'http://svc.example.com';
	expect(normalizeBaseUrl(nonLoopback).problem).toBeDefined();
	const notice = new SvcApi().properties.find(
		(property) => property.name === 'plainHttpNotice',
	)?.displayName;
	expect(notice).toBeDefined();
	await byTestId(modal, 'parameter-input-host').locator('input').fill(nonLoopback);
	await modal
		.getByText(notice!.slice(0, 40), { exact: false })
		.first()
		.waitFor({ timeout: 10_000 });
	await byTestId(modal, 'credential-save-button').click();
	await expectTestMessage(modal, 'Plain http:// is refused for "svc.example.com"');
	await browser.screenshot('4-credential-http-refused');

	// The stored password never reaches the page; what the user types stays masked and is never sent back.
	expect(
		await byTestId(modal, 'parameter-input-password').locator('input').getAttribute('type'),
	).toBe('password');
	expect((await page.content()).includes(sandboxPassword)).toBe(false);
	for (const secret of [sandboxPassword, wrongPassword]) {
		expect(browser.responses.filter((body) => body.includes(secret)).length).toBe(0);
	}
	// The next step goes on in this page: the form is closed, as a user closes it.
	await page.keyboard.press('Escape');
	await modal.waitFor({ state: 'hidden' });
});

test('7. Set Status with an unknown email: the canvas subtitle reads "Operator: Set status", the error details show the Svc code, never "Error code 200"', async () => {
	const { page } = browser;
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.setStatus);
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${SET_STATUS.name}"]`);
	const subtitle = await canvasSubtitle(node);
	await nodePicture(node, '7-canvas-subtitle');
	expect(subtitle).toBe('Operator: Set status');
	expect(subtitle).not.toBe(SET_STATUS.name);

	await node.dblclick();
	const ndv = byTestId(page, 'ndv');
	await executeStep(ndv, ['No operator has this email', 'Error details']);
	const output = byTestId(ndv, 'output-panel');
	// n8n folds the details ("From Svc Chat") under a summary.
	const details = output.locator('details').filter({ hasText: 'Error code' });
	await output
		.locator('summary')
		.filter({ hasText: /^\s*From / })
		.first()
		.click();
	const lines = await waitForTexts(details, ['Error code', 'invalid-agent-email']);
	await details.first().scrollIntoViewIfNeeded();
	await browser.screenshot('7-error-details');
	// The row under "Error code": what the Svc server answered inside its 200 reply, as NodeApiError.httpCode.
	expect(lines[lines.indexOf('Error code') + 1]).toBe('invalid-agent-email');
	expect(lines.join('\n')).not.toMatch(/Error code\n200\b/);

	await byTestId(ndv, 'ndv-close-button').click();
});

test('8. Workflow settings: the default time zone is one the editor knows, never "Default Timezone not valid"', async () => {
	const { page } = browser;
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.departments);
	await byTestId(page, 'workflow-menu').first().click();
	await page.getByRole('menuitem', { name: 'Settings', exact: true }).first().click();
	const dialog = byTestId(page, 'workflow-settings-dialog');
	const timezone = byTestId(dialog, 'workflow-settings-timezone');
	await timezone.waitFor();
	// The editor's zone list arrives a moment after the dialog; until then the select shows no "Default - …".
	await page
		.waitForFunction(
			(element) => {
				// Runs in the page: the select shows its choice in an input or as text, depending on n8n's version.
				const shown = element as unknown as {
					innerText: string;
					querySelector(s: string): unknown;
				};
				const input = shown?.querySelector('input') as { value?: string } | null;
				return /Default - /.test(input?.value || shown?.innerText || '');
			},
			await timezone.elementHandle(),
			{ timeout: FIELDS_TIMEOUT_MS },
		)
		.catch((error: Error) => {
			if (!(error instanceof errors.TimeoutError)) throw error;
		});
	const text = normalizeSpace(
		await timezone.evaluate(
			(element) =>
				(element.querySelector('input') as { value?: string } | null)?.value ||
				(element as unknown as { innerText: string }).innerText,
		),
	);
	await browser.screenshot('8-workflow-settings-timezone');
	expect(text).not.toMatch(/not valid/i);
	expect(text).toBe(`Default - ${env.n8n.env.GENERIC_TIMEZONE}`);
	await page.keyboard.press('Escape');
});

test('9. the chat picker lists recent chats in the order they changed, the latest last, and a typed ID finds an old chat; the operator picker names operators without a status', async () => {
	const { page } = browser;
	// A change now, so that the list has this hour's chats: the seeded ones are from the past 30 days.
	const [justAdded] = env.sandbox.control.addChats(3).slice(-1);
	await openWorkflow(page, env.n8n.baseUrl, WORKFLOW_IDS.chatPicker);
	await byTestId(page, 'canvas-node').filter({ hasText: 'Get a chat' }).dblclick();
	const ndv = byTestId(page, 'ndv');
	await byTestId(byTestId(ndv, 'resource-locator-chatId'), 'rlc-input').first().click();
	const items = byTestId(page, 'rlc-item');
	await items
		.filter({ hasText: `#${justAdded.id}` })
		.first()
		.waitFor({ timeout: FIELDS_TIMEOUT_MS });
	const shownIds = (await items.allInnerTexts()).map((text) => /^#(\S+)/.exec(text.trim())?.[1]);
	await browser.screenshot('9-chat-picker');
	// The order the description states: as the chats last changed, the latest last.
	const lastChanged = env.sandbox.control.recentChats(shownIds.length).map(({ id }) => String(id));
	expect(shownIds).toEqual(lastChanged.reverse());
	expect(shownIds.at(-1)).toBe(String(justAdded.id));

	// A chat of weeks ago, not in the list, found by its ID typed whole.
	const old = Array.from({ length: 20 }, (_, index) => String(10_000 + index)).find(
		(id) => !shownIds.includes(id) && env.sandbox.control.getChat(id),
	)!;
	expect(old).toBeDefined();
	const search = byTestId(page, 'rlc-search');
	const input =
		(await search.first().evaluate((element) => element.tagName)) === 'INPUT'
			? search.first()
			: search.locator('input').first();
	await input.fill(old);
	await page
		.getByText('No results')
		.or(items.filter({ hasText: `#${old}` }))
		.first()
		.waitFor({ timeout: FIELDS_TIMEOUT_MS });
	await browser.screenshot('9-chat-picker-typed-id');
	const found = (await items.allInnerTexts()).map((text) => text.trim());
	expect(found[0]).toMatch(new RegExp(`^#${old}( · |$)`));
	await page.keyboard.press('Escape');
	await byTestId(ndv, 'ndv-close-button').click();

	// The Operator picker names each operator by name and e-mail, not by a status that changes after the pick (issue 65).
	await byTestId(page, 'canvas-node').filter({ hasText: 'Pick an operator' }).dblclick();
	await byTestId(byTestId(ndv, 'resource-locator-email'), 'rlc-input').first().click();
	const labels = env.sandbox.control
		.getOperators()
		.map((one) => `${one.full_name || one.email} (${one.email})`);
	await waitForTexts(items, labels, FIELDS_TIMEOUT_MS);
	await browser.screenshot('9-operator-picker');
	const picked = (await items.allInnerTexts()).map((text) => normalizeSpace(text));
	expect(picked.sort()).toEqual([...labels].sort());
	await page.keyboard.press('Escape');
	await byTestId(ndv, 'ndv-close-button').click();
});
