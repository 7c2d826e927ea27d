// Send Template, step 2: recipients grouped and cut into requests, and what a failed request says about those already sent.
import { chunk } from '../../helpers/broadcast';
import type { Recipient } from './templateRecipients';

/** Recipients grouped by sender and template (usually one group), in input order, then cut into requests. */
export function planRequests(recipients: Recipient[], recipientsPerRequest: number): Recipient[][] {
	const groups = new Map<string, Recipient[]>();
	for (const recipient of recipients) {
		const { operatorId, channelId, templateId } = recipient.sender;
		const key = JSON.stringify([operatorId, channelId, templateId]);
		const group = groups.get(key) ?? [];
		group.push(recipient);
		groups.set(key, group);
	}
	return [...groups.values()].flatMap((group) => chunk(group, recipientsPerRequest));
}

/** "0–99, 150–160": sorted item indexes as ranges. */
export function itemRanges(itemIndexes: number[]): string {
	const sorted = [...itemIndexes].sort((a, b) => a - b);
	const ranges: string[] = [];
	for (let start = 0; start < sorted.length; ) {
		let end = start;
		while (end + 1 < sorted.length && sorted[end + 1] === sorted[end] + 1) end++;
		ranges.push(start === end ? `${sorted[start]}` : `${sorted[start]}–${sorted[end]}`);
		start = end + 1;
	}
	return ranges.join(', ');
}

/** Tells the user which recipients were already sent before a request failed, so a rerun does not message them twice. */
export function alreadySentNote(sentItems: number[]): string | undefined {
	if (!sentItems.length) return undefined;
	return `${sentItems.length} recipient(s) were already sent in earlier requests (items ${itemRanges(sentItems)}); run only the other items again, or these are messaged twice.`;
}
