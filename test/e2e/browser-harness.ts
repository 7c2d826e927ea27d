// Browser e2e support: the machine's Chromium or Chrome driven by playwright-core, logged in to a real n8n, with step screenshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { NodeHelpers, type INodeProperties, type INodeTypeDescription } from 'n8n-workflow';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

import type { Owner } from '../../scripts/n8n';
import { REPO_ROOT } from '../../scripts/runtime';
import { browserExecutable } from '../../scripts/system-programs';
import { N8N_REGEX_TIMEOUT } from './environment';

/** Git-ignored: every step's screenshot, for a person to look at after a run. */
export const SCREENSHOTS_DIR = path.join(REPO_ROOT, 'test/e2e/screenshots');

// Chromium as it is known to work on these machines: no sandbox as root, and no background connections, which a
// closed network refuses by the dozen at every start.
const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** How long the editor may take to show its first page under CPU load, well inside the e2e tests' 5-minute bound. */
const EDITOR_LOAD_TIMEOUT_MS = 120_000;

/**
 * Every page's transitions and animations end at once: the editor slides its panels and menus in, and each click
 * waits until its target stands still. The steps check the state they end in, which stays the same.
 */
const NO_TRANSITIONS = `{
	const style = () => {
		const sheet = document.createElement('style');
		sheet.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
		document.head.append(sheet);
	};
	if (document.head) style();
	else document.addEventListener('DOMContentLoaded', style);
}`;

export interface Browser {
	context: BrowserContext;
	page: Page;
	/** The text of every response the page received, to prove a secret never came back. */
	responses: string[];
	screenshot(name: string): Promise<string>;
	close(): Promise<void>;
}

/** Finds the browser (SVC_CHROME_PATH, then the usual paths; Debian's chromium is installed when missing), or throws
 * saying what to provide; playwright-core never downloads a browser. */
export async function launchBrowser(): Promise<Browser> {
	const executablePath = browserExecutable();
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath,
		headless: true,
		args: CHROMIUM_FLAGS,
		viewport: { width: 1400, height: 900 },
	});
	// n8n's editor is several megabytes of script: on a loaded machine its first page takes longer than Playwright's
	// 30 s default to load, so navigations get the bound the sign-in form gets below.
	context.setDefaultNavigationTimeout(EDITOR_LOAD_TIMEOUT_MS);
	await context.addInitScript(NO_TRANSITIONS);
	const page = context.pages()[0] ?? (await context.newPage());
	const responses: string[] = [];
	page.on('response', (response) => {
		response.text().then(
			(text) => responses.push(text),
			() => undefined, // Redirects and aborted requests have no body.
		);
	});
	fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
	return {
		context,
		page,
		responses,
		async screenshot(name) {
			const file = path.join(SCREENSHOTS_DIR, `${name}.png`);
			await page.screenshot({ path: file });
			return file;
		},
		async close() {
			await context.close();
			fs.rmSync(userDataDir, { recursive: true, force: true });
		},
	};
}

export async function logIn(page: Page, baseUrl: string, owner: Owner): Promise<void> {
	// The form is what the next step needs; the page's "load" event also waits for every image and font.
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
	const email = page.getByLabel(/email/i).first();
	await email.waitFor({ timeout: EDITOR_LOAD_TIMEOUT_MS });
	await email.fill(owner.email);
	await page
		.getByLabel(/password/i)
		.first()
		.fill(owner.password);
	await page.getByRole('button', { name: /sign in/i }).click();
	await page.waitForURL((url) => !url.pathname.includes('signin'), { timeout: 60_000 });
}

export const byTestId = (scope: Page | Locator, id: string): Locator =>
	scope.locator(`[data-test-id="${id}"]`);

/** What the page's globals look like to the functions below that run in it (the project's types have no DOM). */
type InPage = {
	document: { querySelector(selector: string): unknown };
	svcRoute?: { to: string; result?: 'arrived' | 'overtaken' };
};
type Router = {
	currentRoute: { value: { fullPath: string } };
	push(to: string): Promise<unknown>;
};

/** Runs in the page: starts going to `to` through the loaded app's router (Vue keeps the app on its mount element). */
function startRoute(to: string): boolean {
	const page = globalThis as unknown as InPage;
	const mount = page.document.querySelector('#app') as {
		__vue_app__?: { config: { globalProperties: { $router?: Router } } };
	} | null;
	const router = mount?.__vue_app__?.config.globalProperties.$router;
	if (!router) return false;
	const route: NonNullable<InPage['svcRoute']> = { to };
	page.svcRoute = route;
	if (router.currentRoute.value.fullPath === to) route.result = 'arrived';
	// A failure (another navigation of the app's own took over) is returned, not thrown.
	else
		router.push(to).then(
			(failure) => (route.result = failure ? 'overtaken' : 'arrived'),
			() => (route.result = 'overtaken'),
		);
	return true;
}

/** Runs in the page: how the navigation started by startRoute goes; false while it is under way. */
function routeState(leavePrompt: string) {
	const { svcRoute, document } = globalThis as unknown as InPage;
	return svcRoute?.result ?? (document.querySelector(leavePrompt) !== null && 'asks');
}

/** n8n asks this before leaving a workflow whose changes its autosave has not stored yet. */
const LEAVE_PROMPT = '[role="dialog"][aria-label="Save changes before leaving?"]';

/**
 * Goes to a page of the editor as its own links do, through the router of the loaded app, and loads it only when no
 * editor is loaded yet: each load runs megabytes of n8n's script again, seconds per step. Changes n8n has not saved yet
 * are dropped, as a reload drops them.
 */
export async function openEditorPage(page: Page, baseUrl: string, route: string): Promise<void> {
	if (!page.url().startsWith(baseUrl) || !(await page.evaluate(startRoute, route))) {
		await page.goto(`${baseUrl}${route}`);
		return;
	}
	for (let overtaken = 0; ; ) {
		const state = await (
			await page.waitForFunction(routeState, LEAVE_PROMPT, { timeout: EDITOR_LOAD_TIMEOUT_MS })
		).jsonValue();
		if (state === 'arrived') return;
		if (state === 'asks') {
			const prompt = page.locator(LEAVE_PROMPT);
			await prompt.getByRole('button', { name: 'Leave without saving' }).click();
			await prompt.waitFor({ state: 'hidden' });
		} else if (++overtaken < 3) await page.evaluate(startRoute, route);
		else throw new Error(`The editor did not go to ${route}: its own navigations took over`);
	}
}

/** Opens a stored workflow and waits until its canvas shows its nodes and the "+" of the node creator. */
export async function openWorkflow(page: Page, baseUrl: string, workflowId: string): Promise<void> {
	await openEditorPage(page, baseUrl, `/workflow/${workflowId}`);
	// The last canvas stays on screen until the editor has read this workflow: wait for the nodes stored in it.
	const { nodes } = await editorApi<{ nodes: Array<{ name: string }> }>(
		page,
		`workflows/${workflowId}`,
	);
	await page.waitForFunction(
		(names) => {
			const { document } = globalThis as unknown as {
				document: {
					querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string }>;
				};
			};
			const shown = [...document.querySelectorAll('[data-test-id="canvas-node"]')];
			return (
				JSON.stringify(shown.map((node) => node.getAttribute('data-node-name')).sort()) === names
			);
		},
		JSON.stringify(nodes.map((node) => node.name).sort()),
		{ timeout: 90_000 },
	);
	await byTestId(page, 'node-creator-plus-button').waitFor({ timeout: 60_000 });
}

/** A REST call of the editor's own API with the page's session (n8n ties the cookie to the browser id). */
export async function editorApi<T>(page: Page, pathAndQuery: string): Promise<T> {
	const reply = await page.evaluate(async (url) => {
		// Runs in the page; the project's types have no DOM, so the page's localStorage is described here.
		const storage = (
			globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
		).localStorage;
		const response = await fetch(url, {
			headers: { 'browser-id': storage.getItem('n8n-browserId') ?? '' },
		});
		return { status: response.status, text: await response.text() };
	}, `/rest/${pathAndQuery}`);
	if (reply.status !== 200)
		throw new Error(`GET /rest/${pathAndQuery}: ${reply.status} ${reply.text}`);
	return (JSON.parse(reply.text) as { data: T }).data;
}

export const normalizeSpace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * Waits until `scope` shows every one of `texts`, then returns the text of all it matches as normalised, non-empty
 * lines. The editor renders in steps (an output panel says "3 items" before its table is filled), so a single read can
 * come too early. A string matches case-insensitively anywhere in the text, so exact checks stay with the caller, on the
 * lines returned. Fails after `timeoutMs` naming what is still missing and what is shown.
 */
export async function waitForTexts(
	scope: Locator,
	texts: Array<string | RegExp>,
	timeoutMs = 60_000,
): Promise<string[]> {
	const shown = await Promise.all(
		texts.map(async (text) => {
			try {
				await scope.filter({ hasText: text }).first().waitFor({ timeout: timeoutMs });
				return true;
			} catch (error) {
				// Playwright's errors.TimeoutError; anything else is a mistake in the call, not a missing text.
				if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
				return false;
			}
		}),
	);
	const missing = texts
		.filter((_, index) => !shown[index])
		.map((text) => (typeof text === 'string' ? JSON.stringify(text) : String(text)));
	const lines = (await scope.allInnerTexts())
		.flatMap((text) => text.split('\n'))
		.map(normalizeSpace)
		.filter(Boolean);
	if (missing.length) {
		throw new Error(
			`After ${timeoutMs / 1000} s, ${scope} still does not show ${missing.join(', ')}; it shows:\n${lines.join('\n') || '(nothing)'}`,
		);
	}
	return lines;
}

/**
 * Runs the node open in `ndv` as its "Execute step" button does, and waits until its output shows every one of `texts`;
 * returns the output's lines. A run that n8n failed itself on its regex check (N8N_REGEX_TIMEOUT; a loaded machine met
 * it) runs once more, and says so; any other output fails as waitForTexts does.
 */
export async function executeStep(
	ndv: Locator,
	texts: Array<string | RegExp>,
	timeoutMs?: number,
): Promise<string[]> {
	const output = byTestId(ndv, 'output-panel');
	for (let attempt = 1; ; attempt++) {
		await byTestId(ndv, 'node-execute-button').click();
		try {
			return await waitForTexts(output, texts, timeoutMs);
		} catch (error) {
			const shown = (await output.allInnerTexts()).join('\n');
			if (attempt > 1 || !shown.includes(N8N_REGEX_TIMEOUT)) throw error;
			console.log(`n8n failed an Execute step itself (${N8N_REGEX_TIMEOUT}): it runs once more`);
		}
	}
}

// ---------------------------------------------------------------------------------------------------------------
// What the editor must show, derived from the built node description (so relabelled fields need no test change)

export interface OperationPanel {
	resource: string;
	resourceName: string;
	operation: string;
	/** The operation's name in its dropdown ("Set Status"). */
	operationName: string;
	/** The action's name in the node creator. */
	action: string;
	/** Labels of the fields n8n displays for a fresh node of this operation, with its default values. */
	fields: string[];
	/** Fields the user must fill in: required, empty by default, shown by resource and operation alone. */
	fieldsToFill: string[];
}

function isEmptyDefault(value: unknown): boolean {
	// A resource locator's default is { mode, value } (with or without __rl): empty when its value is.
	if (
		value &&
		typeof value === 'object' &&
		!Array.isArray(value) &&
		'mode' in value &&
		'value' in value
	) {
		return isEmptyDefault((value as { value?: unknown }).value);
	}
	return (
		value === '' ||
		value === undefined ||
		value === null ||
		(Array.isArray(value) && value.length === 0)
	);
}

/** The properties n8n displays for a fresh node given these parameters (the others at their defaults). */
function shownProperties(
	description: INodeTypeDescription,
	parameters: Record<string, string>,
): INodeProperties[] {
	const node = {
		id: 'x',
		name: 'x',
		type: description.name,
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters,
	};
	const values =
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			node,
			description,
		) ?? {};
	return description.properties.filter((property) =>
		NodeHelpers.displayParameter(values, property, node, description),
	);
}

/** Every resource and operation of the node, in the order of the Resource dropdown. */
export function operationPanels(description: INodeTypeDescription): OperationPanel[] {
	const resourceProperty = description.properties.find((property) => property.name === 'resource');
	if (!resourceProperty?.options) throw new Error('The node has no Resource field');
	return resourceProperty.options.flatMap((resourceOption) => {
		const { name: resourceName, value: resource } = resourceOption as {
			name: string;
			value: string;
		};
		const operationProperty = description.properties.find(
			(property) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes(resource),
		);
		const operations = (operationProperty?.options ?? []) as Array<{
			value: string;
			name: string;
			action?: string;
		}>;
		return operations.map(({ value: operation, action, name }) => {
			const shown = shownProperties(description, { resource, operation });
			const chosenByOperationOnly = (property: INodeProperties) =>
				Object.keys(property.displayOptions?.show ?? {}).every(
					(key) => key === 'resource' || key === 'operation',
				);
			return {
				resource,
				resourceName,
				operation,
				operationName: name,
				action: action ?? `${resourceName} ${name}`,
				fields: shown
					.filter((property) => property.type !== 'notice')
					.map((property) => property.displayName),
				fieldsToFill: shown
					.filter(
						(property) =>
							property.required &&
							isEmptyDefault(property.default) &&
							chosenByOperationOnly(property),
					)
					.map((property) => property.displayName),
			};
		});
	});
}

export interface TriggerEventPanel {
	/** The value of the trigger's event field, and its name there. */
	event: string;
	name: string;
	/** The event's name in the node creator's Triggers section. */
	action: string;
	/** The fields n8n displays for a fresh node on this event (notices left out): names and labels. */
	fields: Array<{ name: string; label: string; type: string }>;
	/** The texts of the notices n8n displays on this event's panel. */
	notices: string[];
}

/**
 * Every event of a trigger, as n8n's node creator lists it: the options of the field labelled Event, Events or
 * Trigger On (what n8n's editor reads), each shown by its `action`.
 */
export function triggerEventPanels(description: INodeTypeDescription): TriggerEventPanel[] {
	const eventField = description.properties.find((property) =>
		['event', 'events', 'trigger on'].includes(property.displayName.toLowerCase()),
	);
	if (!eventField?.options) throw new Error(`${description.displayName} has no event field`);
	return (eventField.options as Array<{ value: string; name: string; action?: string }>).map(
		({ value, name, action }) => {
			const shown = shownProperties(description, { [eventField.name]: value });
			return {
				event: value,
				name,
				action: action ?? `On ${name}`,
				fields: shown
					.filter((property) => property.type !== 'notice')
					.map((property) => ({
						name: property.name,
						label: property.displayName,
						type: property.type,
					})),
				// As the panel shows them: a link's text without its tag.
				notices: shown
					.filter((property) => property.type === 'notice')
					.map((property) => property.displayName.replace(/<[^>]+>/g, '')),
			};
		},
	);
}
