// Template broadcast entries (spec 4.3): the `body` of one recipient and the split of recipients into requests.
import type { IDataObject } from 'n8n-workflow';

export interface TemplateParameters {
	header: Array<{ type: string; text: string }>;
	body: Array<{ text: string }>;
	footer: Array<{ text: string }>;
}

/**
 * The entry's `body`: one `{type, parameters}` object when exactly one part has parameters, a list of them when
 * several do, nothing when none do (the template's stored content is sent, rule 4). Order is kept (rule 3).
 */
export function templateEntryBody({
	header,
	body,
	footer,
}: TemplateParameters): IDataObject | IDataObject[] | undefined {
	const parts: IDataObject[] = [];
	if (header.length)
		parts.push({ type: 'header', parameters: header.map(({ type, text }) => ({ type, text })) });
	if (body.length)
		parts.push({ type: 'body', parameters: body.map(({ text }) => ({ type: 'text', text })) });
	if (footer.length)
		parts.push({ type: 'footer', parameters: footer.map(({ text }) => ({ text })) });
	if (parts.length === 0) return undefined;
	return parts.length === 1 ? parts[0] : parts;
}

/** Consecutive slices of at most `size` elements; a size of 0 means one slice holding everything. */
export function chunk<T>(list: T[], size: number): T[][] {
	if (list.length === 0) return [];
	if (size <= 0) return [list];
	const chunks: T[][] = [];
	for (let start = 0; start < list.length; start += size)
		chunks.push(list.slice(start, start + size));
	return chunks;
}
