import nock from 'nock';
import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import { createExecuteContext, testCredentials } from '../harness/contexts';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

test('department getMany through the real n8n request stack', async () => {
	const scope = nock('https://acme.svc.example')
		.get('/api/v2/departments')
		.basicAuth({ user: 'admin@svc.test', pass: 'Pw-7f3a9c1e-do-not-leak' })
		.reply(200, [{ id: 1, name: 'Sales', order: 1 }]);
	const node = new SvcChat();
	const ctx = createExecuteContext({
		description: node.description,
		parameters: { resource: 'department', operation: 'getMany', returnAll: true },
		credentials: testCredentials('acme.svc.example'),
	});
	const out = await node.execute.call(ctx);
	expect(out[0]).toEqual([{ json: { id: 1, name: 'Sales', order: 1 }, pairedItem: { item: 0 } }]);
	expect(scope.isDone()).toBe(true);
});

test('network reset is retried, then a 401 is not', async () => {
	nock('https://acme.svc.example').get('/api/v2/departments').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
	const scope = nock('https://acme.svc.example').get('/api/v2/departments').reply(401, 'nope');
	const node = new SvcChat();
	const ctx = createExecuteContext({
		description: node.description,
		parameters: { resource: 'department', operation: 'getMany', returnAll: true },
		credentials: testCredentials('acme.svc.example'),
	});
	await expect(node.execute.call(ctx)).rejects.toThrow('Wrong e-mail or password');
	expect(scope.isDone()).toBe(true);
});
