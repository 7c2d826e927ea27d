// Tariff resource: Get Many reads GET /partner/tariffs, one item per tariff, with Return All / Limit.
import { NodeApiError } from 'n8n-workflow';

import { runNode, runNodeError, svc } from './runNode';

const getMany = { resource: 'tariff', operation: 'getMany' };
const TARIFFS = [
	{
		key: 'basic',
		name: 'Basic',
		description: 'One operator',
		discounts: null,
		partner_prices: { per_operator_price: 8.5, base_price: 0 },
		public_prices: { per_operator_price: 10, base_price: 0 },
	},
	{
		key: 'pro',
		name: 'Pro',
		description: 'Teams',
		discounts: { '6': 10, '12': 20 },
		partner_prices: { per_operator_price: 15.25, base_price: 20 },
		public_prices: { per_operator_price: 18, base_price: 25 },
	},
];

test('Return All gives every tariff as it came', async () => {
	svc().get('/api/v2/partner/tariffs').reply(200, { tariffs: TARIFFS });
	const output = await runNode({ ...getMany, returnAll: true });
	expect(output).toEqual(TARIFFS.map((json) => ({ json, pairedItem: { item: 0 } })));
});

test('a limit keeps the first tariffs', async () => {
	svc().get('/api/v2/partner/tariffs').reply(200, { tariffs: TARIFFS });
	expect((await runNode({ ...getMany, limit: 1 })).map((item) => item.json.key)).toEqual(['basic']);
});

test('a reply without "tariffs" is a NodeApiError; no-tariff-option says API access is off', async () => {
	svc().get('/api/v2/partner/tariffs').reply(200, TARIFFS);
	expect((await runNodeError(getMany)).message).toContain('unexpected shape');
	svc().get('/api/v2/partner/tariffs').reply(200, { error: 'no-tariff-option' });
	const error = await runNodeError(getMany);
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toContain('API access is not enabled');
});
