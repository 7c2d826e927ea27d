// What a model reads about each Svc Chat tool of the examples matches the tool: every filter its description names is
// an input ($fromAI) of that tool, and a tool said to take no input takes none.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operations, selectors } from '../../../nodes/SvcChat/actions/resources';
import { readExamples } from '../../../scripts/examples';

interface ToolNode {
	name: string;
	parameters: Record<string, unknown>;
}

/** The description n8n gives the model: Tool Description, else the operation's own (SvcChat.node.ts). */
function descriptionOf({ parameters }: ToolNode): string {
	const { resource, operation, toolDescription } = parameters as Record<string, string>;
	if (toolDescription?.trim()) return toolDescription;
	const options = selectors[resource].options as INodePropertyOptions[];
	return String(options.find((option) => option.value === operation)?.description);
}

/** The problems of one tool: filters its description names that are no input, and a "no input" tool with inputs. */
function mismatches(tool: ToolNode): string[] {
	const { resource, operation } = tool.parameters as Record<string, string>;
	const description = descriptionOf(tool);
	const problems: string[] = [];
	const filters = operations[resource][operation].properties.find(
		(property) => property.name === 'filters',
	);
	const named = /filtered by ([^.:;]+)/i
		.exec(description)?.[1]
		.toLowerCase()
		.split(/,|\bor\b|\band\b/);
	for (const word of (named ?? []).map((one) => one.trim()).filter(Boolean)) {
		const filter = (filters?.options as INodeProperties[] | undefined)?.find((option) =>
			[option.name, option.displayName].some((name) => name.toLowerCase() === word),
		);
		const given = (tool.parameters.filters as Record<string, unknown> | undefined)?.[
			filter?.name ?? ''
		];
		if (!filter || !String(given ?? '').includes('$fromAI'))
			problems.push(`${tool.name}: says it is filtered by ${word}, which is no input`);
	}
	const inputs = JSON.stringify(tool.parameters).match(/\$fromAI\(/g) ?? [];
	if (/\(no input\)/i.test(description) && inputs.length)
		problems.push(`${tool.name}: says it takes no input, but has ${inputs.length}`);
	return problems;
}

const tools = readExamples().flatMap((workflow) =>
	workflow.nodes.filter((node) => node.type === 'n8n-nodes-svc.svcChatTool'),
) as ToolNode[];

test('the examples have Svc Chat tools', () => {
	expect(tools.map((tool) => tool.name)).toEqual(
		expect.arrayContaining(['List operators', 'Get chat transcript', 'Recent chats of a visitor']),
	);
});

test.each(tools.map((tool) => [tool.name, tool] as const))(
	'%s: every filter its description names is an input of the tool',
	(_, tool) => {
		expect(mismatches(tool)).toEqual([]);
	},
);

test('the check finds a tool that names filters it does not take (List operators before, and as a filter-less copy)', () => {
	const bare = {
		name: 'List operators',
		parameters: { resource: 'operator', operation: 'getMany', filters: {} },
	};
	expect(mismatches(bare)).toEqual([
		'List operators: says it is filtered by status, which is no input',
		'List operators: says it is filtered by role, which is no input',
		'List operators: says it is filtered by email, which is no input',
	]);
	const exposed = {
		...bare,
		parameters: {
			...bare.parameters,
			filters: {
				status: "={{ $fromAI('status', 'statuses', 'string') }}",
				role: "={{ $fromAI('role', 'roles', 'string') }}",
				email: "={{ $fromAI('email', 'an email', 'string') }}",
			},
		},
	};
	expect(mismatches(exposed)).toEqual([]);
	const claimed = {
		...exposed,
		parameters: { ...exposed.parameters, toolDescription: 'All of them (no input).' },
	};
	expect(mismatches(claimed)).toEqual(['List operators: says it takes no input, but has 3']);
});
