// The resource locators' "From List" methods against a started sandbox (search, pagination), and the values they give
// used by the operations, next to the plain values that workflows saved before the locators hold.
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeParameters } from 'n8n-workflow';

import { startSandbox } from '../../sandbox';
import { newChatRecord } from '../../sandbox/data';
import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import {
	operatorPage,
	searchChats,
	searchOperatorEmails,
	searchOperators,
} from '../../nodes/SvcChat/descriptions/listSearch';
import type { Operator } from '../../nodes/SvcChat/types';
import { createExecuteContext, testCredentials } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';

const sandbox = useSandbox({ seed: 11, chats: 120 });
const credentials = sandbox.credentials;

/** What n8n gives a listSearch method: the node, its credentials and the authenticated request helper. */
function loadOptionsContext(): ILoadOptionsFunctions {
	const node = new SvcChat();
	return createExecuteContext({
		description: node.description,
		parameters: { resource: 'chat', operation: 'get' },
		credentials: credentials(),
	}) as unknown as ILoadOptionsFunctions;
}

async function run(parameters: INodeParameters) {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters,
		credentials: credentials(),
	});
	const [output] = await node.execute.call(context);
	return output.map((item) => item.json);
}

/** Every page of a list, following its pagination tokens as the editor does when the user scrolls. */
async function allPages(
	search: (token?: string) => Promise<INodeListSearchResult>,
): Promise<INodeListSearchResult[]> {
	const pages = [await search()];
	while (pages[pages.length - 1].paginationToken) {
		pages.push(await search(pages[pages.length - 1].paginationToken));
		if (pages.length > 50) throw new Error('The list never ends');
	}
	return pages;
}

const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

describe('operators', () => {
	test('Set Status lists every operator by name with the email as value; a search matches name or email, any case', async () => {
		const operators = sandbox.control.getOperators();
		const all = await searchOperatorEmails.call(loadOptionsContext());
		expect(all.paginationToken).toBeUndefined();
		expect(all.results.map((item) => item.value).sort()).toEqual(
			operators.map((operator) => operator.email).sort(),
		);
		expect(
			all.results.every(
				(item) => typeof item.name === 'string' && item.name.includes(String(item.value)),
			),
		).toBe(true);

		const anna = await searchOperatorEmails.call(loadOptionsContext(), 'ANNA');
		expect(anna.results.map((item) => item.value)).toEqual(['anna@svc.test']);
		const byName = operators.find((operator) => operator.email === 'carla@svc.test')!.full_name;
		const carla = await searchOperatorEmails.call(
			loadOptionsContext(),
			byName.split(' ')[0].toLowerCase(),
		);
		expect(carla.results.map((item) => item.value)).toContain('carla@svc.test');
		expect(
			(await searchOperatorEmails.call(loadOptionsContext(), 'nobody-at-all')).results,
		).toEqual([]);
	});

	test('broadcasts list the operators with their numeric ID as value', async () => {
		const operators = sandbox.control.getOperators();
		const all = await searchOperators.call(loadOptionsContext());
		expect(all.results.map((item) => item.value).sort()).toEqual(
			operators.map((operator) => String(operator.id)).sort(),
		);
		const boris = await searchOperators.call(loadOptionsContext(), 'boris@');
		expect(boris.results.map((item) => item.value)).toEqual([
			String(operators.find((o) => o.email === 'boris@svc.test')!.id),
		]);
	});

	test('pages follow one another without gaps or repeats, also with a search term', async () => {
		const operators = sandbox.control.getOperators() as Operator[];
		const toItem = (operator: Operator) => ({ name: operator.full_name, value: operator.email });
		const pages = await allPages(async (token) =>
			operatorPage(operators, undefined, token, toItem, 2),
		);
		expect(pages.map((page) => page.results.length)).toEqual([2, 2, 2]);
		const values = pages.flatMap((page) => page.results.map((item) => item.value));
		expect(new Set(values).size).toBe(operators.length);

		const svcOnly = await allPages(async (token) =>
			operatorPage(operators, '@SVC.test', token, toItem, 4),
		);
		expect(svcOnly.flatMap((page) => page.results)).toHaveLength(operators.length);
		expect(svcOnly).toHaveLength(2);
	});
});

describe('chats', () => {
	test('lists the recently changed chats page by page (100 per page), each once, the newest included', async () => {
		const added = sandbox.control.addChats(150);
		const pages = await allPages((token) =>
			searchChats.call(loadOptionsContext(), undefined, token),
		);
		expect(pages.length).toBeGreaterThanOrEqual(2);
		expect(pages[0].results).toHaveLength(100);
		const values = pages.flatMap((page) => page.results.map((item) => item.value));
		expect(new Set(values).size).toBe(values.length);
		expect(values).toEqual(expect.arrayContaining(added.map((chat) => String(chat.id))));
		// Every entry names its chat, so the user can tell them apart.
		for (const item of pages.flatMap((page) => page.results))
			expect(item.name).toContain(`#${item.value}`);
	});

	test('a visitor who left their contact only in a contacts message is found and named by it, as Simplified says', async () => {
		const chat = sandbox.control.addMissedChat('message');
		const [simplified] = await run({
			resource: 'chat',
			operation: 'get',
			chatId: locator('id', String(chat.id)),
		});
		const name = String(simplified.visitor_name);
		expect(chat.visitor?.fields?.name).toBeUndefined();
		expect(name).not.toBe('null');
		const found = await searchChats.call(loadOptionsContext(), name);
		const entry = found.results.find((item) => item.value === String(chat.id));
		expect(entry?.name).toContain(`#${chat.id} · ${name}`);
	});

	test('a search term finds a chat by ID or by its visitor, across pages', async () => {
		const added = sandbox.control.addChats(150);
		const target = added[140];
		const byId = await searchChats.call(loadOptionsContext(), String(target.id));
		expect(byId.results.map((item) => item.value)).toContain(String(target.id));
		expect(
			byId.results.every((item) =>
				String(item.name).toLowerCase().includes(String(target.id).toLowerCase()),
			),
		).toBe(true);

		const named = added.find((chat) => chat.visitor?.fields?.name)!;
		const name = named.visitor!.fields!.name;
		const byName = await allPages((token) =>
			searchChats.call(loadOptionsContext(), name.toUpperCase(), token),
		);
		const found = byName.flatMap((page) => page.results);
		expect(found.map((item) => item.value)).toContain(String(named.id));
		for (const item of found) expect(String(item.name).toLowerCase()).toContain(name.toLowerCase());
	});

	test('a whole chat ID finds that chat first, however long ago it changed; an unknown ID finds nothing', async () => {
		// A seeded chat of four weeks ago: far behind the recent changes the list walks.
		const old = sandbox.control.getChat(10_005)!;
		expect(Date.now() - Date.parse(old.created_at)).toBeGreaterThan(20 * 86_400_000);
		const found = await searchChats.call(loadOptionsContext(), ` ${old.id} `);
		expect(found.results[0]).toEqual({
			name: expect.stringMatching(/^#10005( · |$)/),
			value: '10005',
		});
		// Every fifth seeded chat from the fourth on has a GUID id (sandbox/README.md).
		const guid = sandbox.control.getChat(newChatRecord(11, 3, 0).id)!;
		const byGuid = await searchChats.call(loadOptionsContext(), String(guid.id));
		expect(byGuid.results.map((item) => item.value)).toEqual([String(guid.id)]);
		for (const unknown of ['99999999', '00000000-0000-4000-8000-000000000000'])
			expect((await searchChats.call(loadOptionsContext(), unknown)).results).toEqual([]);
	});

	test('the list is in the order the chats last changed, as its description says: a chat just changed comes last', async () => {
		const [first] = (await searchChats.call(loadOptionsContext())).results;
		sandbox.control.updateChat(String(first.value));
		const pages = await allPages((token) =>
			searchChats.call(loadOptionsContext(), undefined, token),
		);
		expect(pages.flatMap((page) => page.results).at(-1)!.value).toBe(first.value);
		const chatGet = new SvcChat().description.properties.find((p) => p.name === 'chatId')!;
		expect(chatGet.description).toMatch(/in the order they changed \(the latest last\)/);
		expect(chatGet.description).toMatch(/type a chat ID to find that chat however old/);
	});

	test('an account without chats gives an empty list, not a failure', async () => {
		const empty = await startSandbox({ seed: 3, chats: 0 });
		try {
			const node = new SvcChat();
			const context = createExecuteContext({
				description: node.description,
				parameters: { resource: 'chat', operation: 'get' },
				credentials: testCredentials(empty.host, {
					email: empty.admin.email,
					password: empty.admin.password,
				}),
			}) as unknown as ILoadOptionsFunctions;
			expect(await searchChats.call(context)).toEqual({ results: [], paginationToken: undefined });
		} finally {
			await empty.stop();
		}
	});
});

describe('the values the locators give, and the plain values of older workflows', () => {
	test('Chat > Get takes a chat from the list, by ID, or as a plain ID', async () => {
		const [first] = (await searchChats.call(loadOptionsContext())).results;
		const id = String(first.value);
		for (const chatId of [locator('list', id), locator('id', id), id]) {
			const [chat] = await run({ resource: 'chat', operation: 'get', chatId, output: 'raw' });
			expect(String(chat.id)).toBe(id);
		}
	});

	test('Set Status takes an operator from the list, by email, or as a plain email', async () => {
		const [anna] = (await searchOperatorEmails.call(loadOptionsContext(), 'anna')).results;
		const statuses = ['dinner', 'pre-dinner', 'online'];
		for (const [index, email] of [
			locator('list', String(anna.value)),
			locator('email', 'anna@svc.test'),
			'anna@svc.test',
		].entries()) {
			await run({ resource: 'operator', operation: 'setStatus', email, status: statuses[index] });
			expect(
				sandbox.control.getOperators().find((operator) => operator.email === 'anna@svc.test')
					?.status,
			).toBe(statuses[index]);
		}
	});

	test('a broadcast takes its operator from the list, by ID, or as the plain number saved workflows hold', async () => {
		const [admin] = (await searchOperators.call(loadOptionsContext(), sandbox.admin.email)).results;
		const template = {
			resource: 'broadcast',
			operation: 'sendTemplate',
			channelId: 'wa-main',
			templateId: 'welcome_v2',
			phoneNumber: '+15550000001',
		};
		for (const operatorId of [
			locator('list', String(admin.value)),
			locator('id', String(admin.value)),
			Number(admin.value),
		]) {
			const [result] = await run({ ...template, operatorId } as INodeParameters);
			expect(result).toMatchObject({ result: 'accepted', operator_id: Number(admin.value) });
		}
	});
});
