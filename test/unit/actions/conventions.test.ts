// n8n's node UX guidelines, enforced on the descriptions and messages of both nodes and the credential (issues 17, 19).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyCollection,
	type INodePropertyOptions,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { SvcApi } from '../../../credentials/SvcApi.credentials';
import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import {
	SVC_ERROR_CODES,
	SVC_HTTP_ERRORS,
	describeErrorCode,
	describeNetworkError,
} from '../../../nodes/SvcChat/transport/errors';
import { strictParameters } from '../../harness/contexts';

const action = new SvcChat().description;
const trigger = new SvcChatTrigger().description;
const credential = new SvcApi();
const ROOT = path.join(__dirname, '..', '..', '..');

/** Every property of a description, nested ones (collections, fixed collections) included. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((option) => {
			if ('displayName' in option && 'values' in option)
				return allProperties((option as INodePropertyCollection).values);
			if ('type' in option) return allProperties([option as INodeProperties]);
			return [];
		});
		return [property, ...nested];
	});
}

const everyProperty = [
	...allProperties(action.properties),
	...allProperties(trigger.properties),
	...allProperties(credential.properties),
];
const operationOptions = action.properties
	.filter((property) => property.name === 'operation')
	.flatMap((selector) => selector.options as INodePropertyOptions[]);

/** The shipped source files whose texts users read. */
function sourceFiles(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const file = path.join(folder, name);
		if (statSync(file).isDirectory()) return sourceFiles(file);
		return file.endsWith('.ts') ? [file] : [];
	});
}
const SOURCES = [
	...sourceFiles(path.join(ROOT, 'nodes')),
	...sourceFiles(path.join(ROOT, 'credentials')),
].map((file) => ({
	file: path.relative(ROOT, file),
	// Comments are for developers; only code (and its strings) is checked.
	code: readFileSync(file, 'utf8')
		.split('\n')
		.filter((line) => !/^\s*(\/\/|\/\*\*|\*)/.test(line))
		.join('\n'),
}));

describe('actions (the labels of the node creator)', () => {
	test.each(operationOptions.map((option) => [option.action, option]))(
		'"%s" has no article and is in sentence case',
		(label) => {
			expect(label).toBeTruthy();
			expect(label).not.toMatch(/\b(a|an|the)\b/i);
			expect(label![0]).toBe(label![0].toUpperCase());
			expect(label!.slice(1)).toBe(label!.slice(1).toLowerCase());
		},
	);

	test('one word per concept: no "Stats" next to "Statistic"', () => {
		const texts = JSON.stringify(action.properties);
		expect(texts).not.toMatch(/\bStats\b/);
	});
});

describe('placeholders', () => {
	const withPlaceholder = everyProperty.filter((property) => property.placeholder !== undefined);
	const isButtonLabel = (property: INodeProperties) =>
		['collection', 'fixedCollection'].includes(property.type);
	const isEmail = (property: INodeProperties) =>
		/email/i.test(property.name) || /email/i.test(property.displayName);
	const modes = everyProperty.flatMap((property) =>
		(property.modes ?? []).map((mode) => ({ ...mode, of: property.name })),
	);

	test('there are placeholders to check', () => {
		expect(withPlaceholder.filter((property) => !isButtonLabel(property)).length).toBeGreaterThan(
			10,
		);
	});

	test.each(
		withPlaceholder
			.filter((property) => !isButtonLabel(property) && !isEmail(property))
			.map((p) => [p.displayName, p.placeholder]),
	)('%s: the example starts with "e.g. "', (_name, placeholder) =>
		expect(placeholder).toMatch(/^e\.g\. \S/),
	);

	test("email fields keep n8n's lint placeholder", () => {
		const emails = withPlaceholder.filter(
			(property) => !isButtonLabel(property) && isEmail(property),
		);
		expect(emails.length).toBeGreaterThan(0);
		for (const property of emails) expect(property.placeholder).toBe('name@email.com');
	});

	test('resource locator modes that take text show an example', () => {
		const typed = modes.filter((mode) => mode.type === 'string');
		expect([...new Set(typed.map((mode) => `${mode.of}:${mode.name}`))].sort()).toEqual([
			'chatId:id',
			'email:email',
			'operator:email',
			'operator:id',
			'operatorId:id',
		]);
		for (const mode of typed)
			expect(mode.placeholder).toMatch(mode.name === 'email' ? /^name@email\.com$/ : /^e\.g\. \S/);
	});
});

describe('words users read', () => {
	const labels = everyProperty.flatMap((property) => [
		property.displayName,
		...((property.options ?? []) as Array<{ name?: string; displayName?: string }>).map(
			(option) => option.name ?? option.displayName ?? '',
		),
	]);
	const descriptions = everyProperty.flatMap((property) => [
		property.description ?? '',
		property.hint ?? '',
		...((property.options ?? []) as Array<{ description?: string }>).map(
			(option) => option.description ?? '',
		),
	]);

	test('"Email" as n8n writes it, never "E-Mail"', () => {
		expect(labels.filter((label) => /e-mail/i.test(label))).toEqual([]);
		expect(descriptions.filter((text) => /e-mail/i.test(text))).toEqual([]);
	});

	test('no jargon in descriptions: GUID, microseconds, data.data, cursor (last_ts)', () => {
		expect(
			descriptions.filter((text) =>
				/\bGUID\b|microsecond|data\.data|cursor \(last_ts\)/i.test(text),
			),
		).toEqual([]);
	});

	test('Dinner and Pre-Dinner, and every visitor field, are described', () => {
		const described = (name: string) => everyProperty.filter((property) => property.name === name);
		const statuses = described('status').flatMap(
			(property) => (property.options ?? []) as INodePropertyOptions[],
		);
		for (const value of ['dinner', 'pre-dinner'])
			expect(statuses.find((option) => option.value === value)?.description).toBeTruthy();
		const visitorFields = (described('knownFields')[0].options ?? []) as INodeProperties[];
		expect(visitorFields.length).toBeGreaterThan(5);
		for (const field of visitorFields) expect(field.description).toBeTruthy();
	});
});

describe('messages', () => {
	const displayNames = [
		...new Set(
			everyProperty.map((property) => property.displayName).filter((name) => name.length < 40),
		),
	];

	test('parameter names are in single quotes, never double quotes', () => {
		const doubleQuoted = SOURCES.flatMap(({ file, code }) =>
			displayNames.filter((name) => code.includes(`"${name}"`)).map((name) => `${file}: "${name}"`),
		);
		expect(doubleQuoted).toEqual([]);
		// Labels passed in at run time are quoted by the same rule.
		const dynamic = SOURCES.filter(({ code }) => /"\$\{(label|where)\}"/.test(code)).map(
			({ file }) => file,
		);
		expect(dynamic).toEqual([]);
	});

	const texts = [
		...Object.values(SVC_ERROR_CODES),
		...Object.values(SVC_HTTP_ERRORS),
		describeErrorCode('a-code-nobody-knows', {}),
		...['ENOTFOUND', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNRESET', 'CERT_HAS_EXPIRED', undefined].map(
			(code) => describeNetworkError(code, 'acme.svc.example'),
		),
	];

	test.each(texts.map((text) => [text.message, text]))(
		'"%s" says what happened and what to do without "error" or "failure"',
		(_message, text) => {
			expect(`${text.message} ${text.fix}`).not.toMatch(
				/\b(errors?|failures?|problems?|mistakes?)\b/i,
			);
			expect(text.fix).toBeTruthy();
		},
	);

	test('an API code is named in the description, not in the message', () => {
		const described = describeErrorCode('invalid-agent-email', {});
		expect(described.message).not.toContain('invalid-agent-email');
		expect(described.fix).toContain('(Svc code: invalid-agent-email)');
	});
});

/** The subtitle as n8n's editor evaluates it, for these parameters. */
function subtitleFor(description: INodeTypeDescription, parameters: INodeParameters): unknown {
	const expression = (description.subtitle as string).replace(/^=\{\{/, '').replace(/\}\}$/, '');
	return new Function('$parameter', `return (${expression});`)(parameters);
}

describe('one name per action', () => {
	const resourceNames = (
		action.properties.find((property) => property.name === 'resource')!
			.options as INodePropertyOptions[]
	).map((option) => option.name);
	// The Operation dropdown's names of more than one word ("Get Many"): the node creator says "Get many chats".
	const operationNames = [...new Set(operationOptions.map((option) => option.name))].filter(
		(name) => name.includes(' '),
	);
	const resourceAndOperation = new RegExp(
		`\\b(${resourceNames.join('|')})s? ?(>|→) ?(${operationOptions.map((o) => o.name).join('|')})\\b`,
	);

	test('texts name an action as the node creator does ("Get many operators"), never "Operator > Get Many"', () => {
		const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
		const found = [...SOURCES, { file: 'README.md', code: readme }].flatMap(({ file, code }) =>
			code
				.split('\n')
				.filter((line) => resourceAndOperation.test(line))
				.map((line) => `${file}: ${line.trim().slice(0, 80)}`),
		);
		expect(found).toEqual([]);
	});

	test('node texts use no bare operation name such as "Set Status" (the dropdown\'s own options aside)', () => {
		expect(operationNames).toEqual(expect.arrayContaining(['Get Many', 'Set Status']));
		const found = SOURCES.flatMap(({ file, code }) =>
			code
				.split('\n')
				.filter((line) => !/^\s*name: '[^']*',$/.test(line))
				.flatMap((line) => operationNames.filter((name) => line.includes(name)))
				.map((name) => `${file}: ${name}`),
		);
		expect(found).toEqual([]);
	});
});

describe('canvas subtitle', () => {
	// n8n names a node added from the node creator after its action (makeNodeName), and shows the subtitle under it.
	test("names the resource and operation as their dropdowns do, in sentence case as the trigger's events, never the name", () => {
		const resourceNames = Object.fromEntries(
			(
				action.properties.find((property) => property.name === 'resource')!
					.options as INodePropertyOptions[]
			).map((option) => [option.value, option.name]),
		);
		const selectors = action.properties.filter((property) => property.name === 'operation');
		let checked = 0;
		for (const selector of selectors) {
			const resource = selector.displayOptions!.show!.resource![0] as string;
			for (const option of selector.options as INodePropertyOptions[]) {
				const parameters = { resource, operation: option.value };
				const name = NodeHelpers.makeNodeName(parameters, action);
				const words = option.name.split(' ');
				const operationWords = [words[0], ...words.slice(1).map((word) => word.toLowerCase())];
				expect(name).toBe(option.action);
				expect(subtitleFor(action, parameters)).toBe(
					`${resourceNames[resource]}: ${operationWords.join(' ')}`,
				);
				expect(subtitleFor(action, parameters)).not.toBe(name);
				checked++;
			}
		}
		expect(checked).toBe(operationOptions.length);
		expect(subtitleFor(action, { resource: 'operator', operation: 'setStatus' })).toBe(
			'Operator: Set status',
		);
		expect(subtitleFor(action, { resource: 'chat', operation: 'getMany' })).toBe('Chat: Get many');
		expect(subtitleFor(action, { resource: 'statistics', operation: 'getUsage' })).toBe(
			'Statistic: Get usage',
		);
	});
});

/** The issues n8n's editor marks on a freshly added node with these values, by parameter name. */
function issuesOf(description: INodeTypeDescription, values: INodeParameters): string[] {
	const parameters = strictParameters(description, values);
	const node: INode = {
		id: 'n',
		name: 'n',
		type: description.name,
		typeVersion: 2,
		position: [0, 0],
		parameters,
	};
	const issues = NodeHelpers.getNodeParametersIssues(description.properties, node, description);
	return Object.keys(issues?.parameters ?? {}).sort();
}

describe("defaults a new node gets (the editor's own parameter check)", () => {
	const pairs = operationOptions.map((option) => {
		const selector = action.properties.find(
			(property) =>
				property.name === 'operation' &&
				(property.options as INodePropertyOptions[]).includes(option),
		)!;
		return {
			resource: selector.displayOptions!.show!.resource![0] as string,
			operation: option.value as string,
		};
	});

	// What only the user can know is flagged before a run; everything else is valid as it comes.
	const USER_INPUT: Record<string, string[]> = {
		'broadcast/sendOverChatHistory': ['channelId', 'operatorId'],
		'broadcast/sendTemplate': ['channelId', 'operatorId', 'phoneNumber', 'templateId'],
		'chat/get': ['chatId'],
		'operator/setStatus': ['email'],
		'visitor/pairToken': ['visitorId'],
		'visitor/removeToken': ['authToken'],
	};

	test.each(
		pairs.map(({ resource, operation }) => [`${resource}/${operation}`, resource, operation]),
	)('%s: only the fields the user must fill in are flagged', (pair, resource, operation) => {
		expect(issuesOf(action, { resource, operation })).toEqual(USER_INPUT[pair] ?? []);
	});

	test("the broadcasts' Operator has no valid-looking default: it starts empty, from the list", () => {
		const operator = action.properties.find((property) => property.name === 'operatorId')!;
		expect(operator.default).toEqual({ mode: 'list', value: '' });
	});

	test('the trigger is valid as it comes', () => {
		expect(issuesOf(trigger, {})).toEqual([]);
	});
});

describe('the trigger in the node creator', () => {
	const values = (property: INodeProperties) =>
		(property.options as INodePropertyOptions[]).map((option) => option.value);
	/** n8n's node creator lists a polling trigger's events from a property labelled Event, Events or Trigger On. */
	const events = trigger.properties.find((property) =>
		['event', 'events', 'trigger on'].includes(property.displayName.toLowerCase()),
	);

	test('lists "On every change", "On new chats only", "On new rating", "On missed chat"…, still stored as "emit"', () => {
		expect(events?.name).toBe('emit');
		const options = events!.options as INodePropertyOptions[];
		expect(Object.fromEntries(options.map((option) => [option.value, option.action]))).toEqual({
			everyChange: 'On every change',
			newChats: 'On new chats only',
			finishedChats: 'On finished chats only',
			newRating: 'On new rating',
			missedChat: 'On missed chat',
			operatorStatusChanged: 'On operator status changed',
			operatorAvailabilityChanged: 'On operator availability changed',
			visitorWaiting: 'On visitor waiting',
		});
	});

	test.each((events!.options as INodePropertyOptions[]).map((option) => [option.action, option]))(
		'"%s" has no article and is in sentence case',
		(label) => {
			expect(label).not.toMatch(/\b(a|an|the)\b/i);
			expect(label!.slice(1)).toBe(label!.slice(1).toLowerCase());
		},
	);

	test('the canvas subtitle names every event, and is not the name n8n gives the node', () => {
		for (const emit of values(events!))
			expect(subtitleFor(trigger, { emit })).not.toBe(NodeHelpers.makeNodeName({ emit }, trigger));
		const subtitles = values(events!).map((emit) => [emit, subtitleFor(trigger, { emit })]);
		expect(Object.fromEntries(subtitles)).toEqual({
			everyChange: 'Every change',
			newChats: 'New chats',
			finishedChats: 'Finished chats',
			newRating: 'New rating',
			missedChat: 'Missed chat',
			operatorStatusChanged: 'Operator status changed',
			operatorAvailabilityChanged: 'Operator availability changed',
			visitorWaiting: 'Visitor waiting',
		});
	});

	test("each panel shows only its event's fields, and each is valid as it comes", () => {
		const shown = (emit: string) => Object.keys(strictParameters(trigger, { emit })).sort();
		const CHAT = ['emit', 'options', 'output', 'startFrom'];
		for (const emit of ['everyChange', 'newChats', 'finishedChats'])
			expect(shown(emit)).toEqual([...CHAT, `${emit}Notice`].sort());
		// New Rating and Missed Chat: a chat in each item, shaped by Chat Output (no One Item per Message).
		const EVENT = ['chatOutput', 'emit', 'options', 'startFrom'];
		expect(shown('missedChat')).toEqual([...EVENT, 'missedChatNotice'].sort());
		expect(shown('newRating')).toEqual([...EVENT, 'newRatingNotice', 'ratings'].sort());
		expect(shown('operatorStatusChanged')).toEqual([
			'emit',
			'operatorStatusChangedNotice',
			'operators',
			'roles',
			'toStatuses',
		]);
		expect(shown('operatorAvailabilityChanged')).toEqual([
			'availableStatuses',
			'emit',
			'operatorAvailabilityChangedNotice',
			'roles',
		]);
		for (const emit of ['operatorStatusChanged', 'operatorAvailabilityChanged', 'newRating'])
			expect(issuesOf(trigger, { emit })).toEqual([]);
	});

	// Issue 65: the late-report rule in one plain sentence, with a link to the page that gives all of it.
	test("a notice on each operator panel says what Fetch Test Event shows, that a new workflow's first poll only records, and that a change made during a pause comes late, with a link to docs/trigger.md", () => {
		for (const name of ['operatorStatusChangedNotice', 'operatorAvailabilityChangedNotice']) {
			const notice = trigger.properties.find((property) => property.name === name);
			expect(notice?.type).toBe('notice');
			expect(notice?.displayName).toMatch(/Fetch Test Event/);
			expect(notice?.displayName).toMatch(
				/A new workflow's first poll only records statuses; after a pause, what changed meanwhile comes late \(<a href="https:\/\/github\.com\/n8n-nodes-svc\/n8n-nodes-svc\/blob\/main\/docs\/trigger\.md#when-it-happened" target="_blank">details<\/a>\)\.$/,
			);
			expect(notice?.displayName).not.toMatch(/durable|in memory|changed_after/);
		}
		// The anchor is a heading of docs/trigger.md.
		expect(readFileSync(path.join(ROOT, 'docs/trigger.md'), 'utf8')).toMatch(
			/^### When it happened$/m,
		);
	});

	test("each event's notice speaks of that event only, and says of what Fetch Test Event shows the newest", () => {
		const noticeOf = (emit: string) => {
			const shown = strictParameters(trigger, { emit });
			const notices = trigger.properties.filter(
				(property) => property.type === 'notice' && property.name in shown,
			);
			expect(notices).toHaveLength(1);
			return notices[0].displayName;
		};
		const rating = noticeOf('newRating');
		const missed = noticeOf('missedChat');
		expect(rating).toMatch(/up to 5 ratings, the last given \(rated_at\) first/);
		expect(rating).not.toMatch(/missed/i);
		expect(missed).toMatch(/up to 5 missed chats, the last closed first/);
		expect(missed).not.toMatch(/rating/i);
		const status = noticeOf('operatorStatusChanged');
		const availability = noticeOf('operatorAvailabilityChanged');
		expect(status).not.toMatch(/availab/i);
		expect(availability).not.toMatch(/previous one/);
		expect(availability).toMatch(/available now/);
		const everyNotice = values(events!).map((emit) => noticeOf(emit as string));
		const waiting = noticeOf('visitorWaiting');
		expect(waiting).toMatch(/up to 5 visitors waiting now, however briefly, the latest wait first/);
		expect(waiting).not.toMatch(/rating|missed/i);
		// Issue 59: New Chats Only and Finished Chats Only no longer share Every Change's notice.
		expect(noticeOf('newChats')).toMatch(/newest chats by their creation \(created_at\)/);
		expect(noticeOf('finishedChats')).toMatch(/most recently changed closed chats/);
		expect(new Set(everyNotice).size).toBe(8);
	});

	test("'Trigger On' claims nothing of particular events: each option and notice says what its event emits", () => {
		expect(events!.description).not.toMatch(/first three|New Rating/);
	});

	test('a notice on the panel says what Fetch Test Event shows and what activation does', () => {
		const notice = trigger.properties.find((property) => property.name === 'everyChangeNotice');
		expect(notice?.displayName).toMatch(/Fetch Test Event/);
		expect(notice?.displayName).toMatch(/'Start From'/);
		// What "recent" means: the look-back steps of transport/chats.ts, widened until 5 chats are found.
		expect(notice?.displayName).toMatch(
			/up to 5 .* last hour, or, with fewer than 5 there, of the last day, week, month, year or whole history/,
		);
	});

	test("'Trigger On' comes first on every event's panel, as n8n's triggers put their event first", () => {
		for (const emit of values(events!)) {
			const shown = Object.keys(strictParameters(trigger, { emit }));
			const order = trigger.properties
				.map((property) => property.name)
				.filter((name) => shown.includes(name));
			expect([emit, order[0]]).toEqual([emit, 'emit']);
		}
	});
});
