// The frozen clock of the trigger tests that look back from "now" (Start From "Now", the manual sample).
export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Date.now() gives NOW in every test of the file; the spy is undone after each. */
export function freezeClock(): void {
	beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
	afterEach(() => jest.restoreAllMocks());
}
