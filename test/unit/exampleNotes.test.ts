// The examples' sticky notes: a note that tells the user to replace a node never then uses a field that node makes.
import type { INode } from 'n8n-workflow';

import { readExamples } from '../../scripts/examples';

/** The item fields a node makes, for the node types the examples' notes tell users to replace. */
function fieldsMadeBy(node: INode): string[] {
	if (node.type === 'n8n-nodes-base.set') {
		const { assignments = [] } = (node.parameters.assignments ?? {}) as {
			assignments?: Array<{ name: string }>;
		};
		return assignments.map(({ name }) => name);
	}
	// Convert to File makes a binary file, no field of the item's json.
	if (node.type === 'n8n-nodes-base.convertToFile') return [];
	throw new Error(`This test does not know which fields a ${node.type} makes (${node.name})`);
}

/** Each node a note tells the user to replace ("Replace **Name** with …"), with the $json fields its expressions use. */
function replacements(content: string) {
	const used = [...content.matchAll(/\{\{([^}]*)\}\}/g)].flatMap(([, expression]) =>
		[...expression.matchAll(/\$json(?:\.(\w+)|\[['"]([^'"]+)['"]\])/g)].map(
			([, dotted, quoted]) => dotted ?? quoted,
		),
	);
	return [...content.matchAll(/\b(?:replace|swap|exchange)\s+\*\*([^*]+)\*\*/gi)].map(
		([, name]) => ({ name, used }),
	);
}

const notes = readExamples().flatMap((example) =>
	example.nodes
		.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
		.map((note) => ({ example, note, content: String(note.parameters.content) })),
);

test('the examples have notes, and one of them tells the user to replace a node', () => {
	expect(notes.length).toBeGreaterThanOrEqual(12);
	expect(notes.flatMap(({ content }) => replacements(content)).length).toBeGreaterThan(0);
});

test.each(notes.map((one) => [`${one.example.name} / ${one.note.name}`, one]))(
	'%s: a node it says to replace makes none of the fields it then uses',
	(_, { example, content }) => {
		for (const { name, used } of replacements(content)) {
			const node = example.nodes.find((one) => one.name === name);
			expect({ name, exists: node !== undefined }).toEqual({ name, exists: true });
			const made = fieldsMadeBy(node!);
			expect({ name, usesWhatItMakes: used.filter((field) => made.includes(field)) }).toEqual({
				name,
				usesWhatItMakes: [],
			});
		}
	},
);
