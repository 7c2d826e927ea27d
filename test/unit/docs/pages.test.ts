// The README stays a ten-minute read; each page of docs/ opens with a short summary and ends with how it is proven.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const PAGES = ['trigger', 'outputs', 'reliability', 'ai', 'api-gaps', 'development'];

/** Words as `wc -w` counts them: runs of characters between white space. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The lines of the summary: those between the page's title and the first blank line after them. */
const summary = (markdown: string) => {
	const [title, blank, ...rest] = markdown.split('\n');
	if (!title.startsWith('# ') || blank !== '') return [];
	return rest.slice(0, rest.indexOf(''));
};
const headings = (markdown: string) =>
	markdown
		.split('\n')
		.filter((line) => line.startsWith('## '))
		.map((line) => line.slice(3));

test('the README has at most 2,500 words', () => {
	expect(words(read('README.md'))).toBeLessThanOrEqual(2500);
	expect(words('a b\n c')).toBe(3);
});

test('docs/ has one page per subject, each opening with a summary of one to five lines', () => {
	expect(
		readdirSync(path.join(ROOT, 'docs'))
			.filter((name) => name.endsWith('.md'))
			.sort(),
	).toEqual(PAGES.map((page) => `${page}.md`).sort());
	for (const page of PAGES) {
		const lines = summary(read(`docs/${page}.md`));
		const prose = lines.every((line) => !/^(#|\||```)/.test(line));
		expect({ page, fits: lines.length >= 1 && lines.length <= 5 && prose }).toEqual({
			page,
			fits: true,
		});
	}
	expect(summary('# Title\n\none\ntwo\n\n## Rest\n')).toEqual(['one', 'two']);
});

test('each page ends with "How it is proven", and keeps the headings others write under', () => {
	for (const page of PAGES)
		expect(headings(read(`docs/${page}.md`)).at(-1)).toBe('How it is proven');
	expect(headings(read('docs/reliability.md'))).toEqual(
		expect.arrayContaining(['The login guard', 'Queue mode', 'What static data holds', 'Security']),
	);
	expect(headings(read('docs/outputs.md'))).toEqual(
		expect.arrayContaining([
			'Get many chats',
			'Response times',
			'The Transcript output',
			"The visitor's contact",
		]),
	);
	expect(headings(read('docs/trigger.md'))).toEqual(
		expect.arrayContaining([
			'Events',
			'New Rating and Missed Chat',
			'Visitor Waiting',
			'Operator events',
		]),
	);
});
