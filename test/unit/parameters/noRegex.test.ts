// No regex that n8n runs during an execution: n8n 2.x runs `_cnd.regex` display conditions, resource-locator
// `validation` and `extractValue` regexes in a vm with a 250 ms limit, which a busy worker overruns (issue 57).
import type { INodeProperties } from 'n8n-workflow';

import { SvcApi } from '../../../credentials/SvcApi.credentials';
import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';

/**
 * Every place in a description where n8n would run a regex: a `regex` key (a `_cnd` condition, a validation's or an
 * extractValue's pattern), a `type: 'regex'` rule, a locator value's `__regex`. Walks everything: options,
 * collections, fixedCollection values, locator modes, the node's credentials list. Paths use the properties' names.
 */
function regexesIn(value: unknown, path: string): string[] {
	if (Array.isArray(value))
		return value.flatMap((one, index) => regexesIn(one, `${path}[${index}]`));
	if (typeof value !== 'object' || value === null) return [];
	const fields = value as Record<string, unknown>;
	const at = typeof fields.name === 'string' ? `${path}<${fields.name}>` : path;
	const found = fields.type === 'regex' ? [`${at}: type 'regex'`] : [];
	for (const [key, child] of Object.entries(fields)) {
		if (key === 'regex' || key === '__regex') found.push(`${at}.${key}`);
		else found.push(...regexesIn(child, `${at}.${key}`));
	}
	return found;
}

describe('no regex that n8n runs during an execution', () => {
	test('the walk finds each kind, however deep: _cnd.regex, locator validation, extractValue, __regex', () => {
		const locator: INodeProperties = {
			displayName: 'Operator',
			name: 'operator',
			type: 'resourceLocator',
			default: { __rl: true, mode: 'url', value: '', __regex: 'x' },
			modes: [
				{
					displayName: 'By Email',
					name: 'email',
					type: 'string',
					validation: [{ type: 'regex', properties: { regex: '.+@.+', errorMessage: 'no' } }],
				},
				{
					displayName: 'URL',
					name: 'url',
					type: 'string',
					extractValue: { type: 'regex', regex: '(\\d+)' },
				},
			],
		};
		const deep: INodeProperties[] = [
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [
					{
						displayName: 'Note',
						name: 'note',
						type: 'string',
						default: '',
						displayOptions: { hide: { '/mode': [{ _cnd: { regex: '^a' } }] } },
					},
				],
			},
			{
				displayName: 'Operators',
				name: 'operators',
				type: 'fixedCollection',
				default: {},
				options: [{ displayName: 'Operator', name: 'operator', values: [locator] }],
			},
		];
		expect(regexesIn(deep, 'properties')).toEqual([
			'properties[0]<options>.options[0]<note>.displayOptions.hide./mode[0]._cnd.regex',
			'properties[1]<operators>.options[0]<operator>.values[0]<operator>.default.__regex',
			"properties[1]<operators>.options[0]<operator>.values[0]<operator>.modes[0]<email>.validation[0]: type 'regex'",
			'properties[1]<operators>.options[0]<operator>.values[0]<operator>.modes[0]<email>.validation[0].properties.regex',
			"properties[1]<operators>.options[0]<operator>.values[0]<operator>.modes[1]<url>.extractValue: type 'regex'",
			'properties[1]<operators>.options[0]<operator>.values[0]<operator>.modes[1]<url>.extractValue.regex',
		]);
	});

	// n8n reads the credential's display conditions on every read of the credential (CredentialsHelper), the nodes'
	// at every Workflow it builds, and validates every locator of the nodes an execution starts from.
	test.each([
		['the Svc API credential', new SvcApi().properties],
		['Svc Chat and its AI-tool variant (the same properties)', new SvcChat().description],
		['Svc Chat Trigger', new SvcChatTrigger().description],
	])('%s: none', (_, description) => {
		expect(regexesIn(description, 'description')).toEqual([]);
	});
});
