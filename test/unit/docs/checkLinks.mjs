// Checks the links of Markdown files with remark-validate-links and prints what it found as JSON, one problem a line.
// An ES module (remark is ESM only), so the jest test runs it in its own Node process: node checkLinks.mjs root repo files…
// Links to the repository's own GitHub URLs (https://github.com/<repo>/blob/<branch>/…) are checked against root.
import { remark } from 'remark';
import remarkValidateLinks from 'remark-validate-links';
import { engine } from 'unified-engine';

const [root, repository, ...files] = process.argv.slice(2);

engine(
	{
		processor: remark(),
		files,
		cwd: root,
		plugins: [[remarkValidateLinks, { repository, root }]],
		// Read only: no output file, no report on stderr, no configuration files looked up.
		output: false,
		out: false,
		silent: true,
		detectConfig: false,
		detectIgnore: false,
		streamError: { write: () => true },
	},
	(error, _code, context) => {
		if (error) throw error;
		const problems = context.files.flatMap((file) =>
			file.messages.map((message) => ({
				file: file.path,
				line: message.line,
				reason: message.reason,
			})),
		);
		process.stdout.write(JSON.stringify(problems));
	},
);
