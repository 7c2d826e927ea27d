// The package's shape, kept by a test: its weight budget, at most six transport modules, no import cycle, and
// actions/ and trigger/ apart (what both need lives in transport/, descriptions/, parameters/ or helpers/).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** Every file below `folder` (relative to the repository) whose name ends with `ending`. */
function filesIn(folder: string, ending: string): string[] {
	return fs
		.readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
		.filter((file) => file.endsWith(ending))
		.map((file) => path.join(folder, file));
}

/** Lines as `wc -l` counts them: newline characters. */
const linesOf = (file: string) =>
	fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
const totalLines = (files: string[]) => files.reduce((sum, file) => sum + linesOf(file), 0);

const shipped = [...filesIn('nodes', '.ts'), ...filesIn('credentials', '.ts')];

/** The shipped files each file imports (relative imports only; packages are not part of the graph). */
function importGraph(): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of shipped) {
		const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'));
		const targets = importedFiles
			.map(({ fileName }) => fileName)
			.filter((name) => name.startsWith('.'))
			.map((name) => path.join(path.dirname(file), name))
			.map((target) =>
				[`${target}.ts`, path.join(target, 'index.ts')].find((f) => shipped.includes(f)),
			);
		graph.set(
			file,
			targets.filter((target): target is string => target !== undefined),
		);
	}
	return graph;
}

test('the graph reads every relative import of the shipped code', () => {
	const graph = importGraph();
	// A relative import the graph could not resolve would hide an edge, and with it a cycle.
	for (const file of shipped) {
		const relative = ts
			.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'))
			.importedFiles.filter(({ fileName }) => fileName.startsWith('.'));
		expect({ file, edges: graph.get(file)?.length }).toEqual({ file, edges: relative.length });
	}
	expect(graph.get('nodes/SvcChat/SvcChat.node.ts')).toContain('nodes/SvcChat/actions/router.ts');
});

test('nodes/ and credentials/ weigh at most 5,250 lines', () => {
	expect(shipped.length).toBeGreaterThan(20);
	expect(totalLines(shipped)).toBeLessThanOrEqual(5250);
});

test('scripts/ weighs at most 1,800 lines', () => {
	const scripts = fs.readdirSync(path.join(ROOT, 'scripts')).map((file) => `scripts/${file}`);
	expect(scripts.length).toBeGreaterThan(5);
	expect(totalLines(scripts)).toBeLessThanOrEqual(1800);
});

test('the transport is at most six modules, with no barrel', () => {
	const transport = filesIn('nodes/SvcChat/transport', '.ts');
	expect(transport.length).toBeGreaterThan(0);
	expect(transport.length).toBeLessThanOrEqual(6);
	expect(transport).not.toContain('nodes/SvcChat/transport/index.ts');
});

test('actions/ and trigger/ never import each other', () => {
	const side = (file: string) =>
		['actions', 'trigger'].find((folder) => file.includes(`/${folder}/`));
	const crossings = [...importGraph()].flatMap(([file, targets]) =>
		targets
			.filter((target) => side(file) && side(target) && side(file) !== side(target))
			.map((target) => `${file} -> ${target}`),
	);
	expect(crossings).toEqual([]);
});

test('the shipped code has no import cycle', () => {
	const graph = importGraph();
	const done = new Set<string>();
	const cycles: string[] = [];
	const visit = (file: string, trail: string[]) => {
		if (trail.includes(file)) {
			cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
			return;
		}
		if (done.has(file)) return;
		for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
		done.add(file);
	};
	for (const file of graph.keys()) visit(file, []);
	expect(cycles).toEqual([]);
});

test('every import runs down the layers: helpers, transport, parameters and descriptions, output, then the nodes', () => {
	// Leaf utilities (pure values and times) sit below the transport; chat shaping, which calls the transport, above it.
	const LAYERS = ['types', 'helpers', 'transport', 'parameters', 'descriptions', 'output'];
	const layerOf = (file: string) => {
		const [folder] = path.relative('nodes/SvcChat', file).split(path.sep);
		const index = LAYERS.indexOf(folder.replace(/\.ts$/, ''));
		return index >= 0 ? index : LAYERS.length; // actions/, trigger/ and the node files come last
	};
	const upward = [...importGraph()].flatMap(([file, targets]) =>
		targets
			.filter((target) => file.startsWith('nodes/') && layerOf(target) > layerOf(file))
			.map((target) => `${file} -> ${target}`),
	);
	expect(layerOf('nodes/SvcChat/output/chatOutput.ts')).toBeGreaterThan(
		layerOf('nodes/SvcChat/transport/request.ts'),
	);
	expect(upward).toEqual([]);
});
