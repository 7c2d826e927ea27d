// The browser harness's wait: text a page adds after its item count is waited for, and a wait that runs out says why.
import { launchBrowser, waitForTexts, type Browser } from './browser-harness';

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
