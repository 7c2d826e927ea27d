// The browser harness's waits: text a page adds after its item count is waited for, a wait that runs out says why, and
// an Execute step that n8n failed itself on its regex check runs once more, never any other failure.
import { executeStep, launchBrowser, waitForTexts, type Browser } from './browser-harness';
import { N8N_REGEX_TIMEOUT } from './environment';

let browser: Browser;
beforeAll(async () => {
	browser = await launchBrowser();
}, 120_000);
afterAll(async () => await browser?.close());

test('waits for the rows a page adds after it shows the count, and returns every line', async () => {
	// As n8n's output panel does: "3 items" first, the table a moment later.
	await browser.page.setContent(`<div id="output">OUTPUT 3 items</div><script>
		setTimeout(() => document.getElementById('output').insertAdjacentHTML('beforeend',
			'<table><tr><td>Sales</td></tr><tr><td>Support</td></tr></table>'), 1000);
	</script>`);
	const output = browser.page.locator('#output');
	expect(await waitForTexts(output, ['3 items', 'Sales', 'Support'], 20_000)).toEqual([
		'OUTPUT 3 items',
		'Sales',
		'Support',
	]);
});

test('a wait that runs out names what is missing and what is shown', async () => {
	await browser.page.setContent('<div id="output">OUTPUT 3 items<p>Sales</p></div>');
	await expect(
		waitForTexts(browser.page.locator('#output'), ['Sales', 'Billing', /Triggers \(\d+\)/], 500),
	).rejects.toThrow(
		`After 0.5 s, locator('#output') still does not show "Billing", /Triggers \\(\\d+\\)/; it shows:\nOUTPUT 3 items\nSales`,
	);
});

/** An NDV as n8n's editor has one: each click of its execute button shows the next of `outputs`, and counts. */
async function fakeNdv(outputs: string[]) {
	await browser.page.setContent(`<div data-test-id="ndv">
		<button data-test-id="node-execute-button">Execute step</button>
		<div data-test-id="output-panel"></div></div>
	<script>
		// A block: the page's window outlives setContent, and a second top-level const would not run.
		{
			const outputs = ${JSON.stringify(outputs)};
			window.clicks = 0;
			document.querySelector('button').onclick = () => {
				document.querySelector('[data-test-id="output-panel"]').textContent = outputs[window.clicks++] ?? '';
			};
		}
	</script>`);
	return {
		ndv: browser.page.locator('[data-test-id="ndv"]'),
		clicks: () => browser.page.evaluate(() => (globalThis as unknown as { clicks: number }).clicks),
	};
}

describe('executeStep', () => {
	const said = jest.spyOn(console, 'log').mockImplementation(() => {});
	afterEach(() => said.mockClear());
	afterAll(() => said.mockRestore());

	test('a run that n8n failed on its regex check runs once more, and says so', async () => {
		const { ndv, clicks } = await fakeNdv([
			`OUTPUT 1 item ${N8N_REGEX_TIMEOUT}`,
			'OUTPUT 5 items 10001',
		]);
		expect(await executeStep(ndv, [/\d+ items?/, '10001'], 500)).toEqual(['OUTPUT 5 items 10001']);
		expect(await clicks()).toBe(2);
		expect(said).toHaveBeenCalledWith(expect.stringContaining(N8N_REGEX_TIMEOUT));
	});

	test('any other failure fails at once, after one run', async () => {
		const { ndv, clicks } = await fakeNdv(['OUTPUT 1 item Bad request', 'OUTPUT 5 items 10001']);
		await expect(executeStep(ndv, ['10001'], 500)).rejects.toThrow(
			'still does not show "10001"; it shows:\nOUTPUT 1 item Bad request',
		);
		expect(await clicks()).toBe(1);
		expect(said).not.toHaveBeenCalled();
	});

	test('the regex check failing twice fails, after the second run', async () => {
		const timedOut = `OUTPUT 1 item ${N8N_REGEX_TIMEOUT}`;
		const { ndv, clicks } = await fakeNdv([timedOut, timedOut, 'OUTPUT 5 items 10001']);
		await expect(executeStep(ndv, ['10001'], 500)).rejects.toThrow(`it shows:\n${timedOut}`);
		expect(await clicks()).toBe(2);
	});
});
