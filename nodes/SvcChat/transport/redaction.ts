// Redaction: keeps the password, in every form a server could echo it, out of messages built from replies.
import type { IDataObject } from 'n8n-workflow';

import type { SvcCredentials } from './types';

const EXCERPT_LENGTH = 200;

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The forms in which the password could come back from a hostile or careless server: as typed, JSON-escaped,
 * URL-encoded, or inside the Basic `Authorization` value. Longest first, so no form is left half-replaced.
 */
export function secretForms(credentials: SvcCredentials): string[] {
	const password = typeof credentials.password === 'string' ? credentials.password : '';
	if (!password) return [];
	const basic = Buffer.from(`${credentials.email ?? ''}:${password}`).toString('base64');
	const forms = [
		password,
		JSON.stringify(password).slice(1, -1),
		encodeURIComponent(password),
		basic,
	];
	return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: string[]): string {
	let clean = text;
	for (const secret of secrets) clean = clean.split(secret).join('***');
	return clean;
}

/** Redacts every string inside a value taken from a reply, keeping its shape. */
export function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (isObject(value)) {
		return Object.fromEntries(
			Object.entries(value).map(([key, entry]) => [
				redact(key, secrets),
				redactValue(entry, secrets),
			]),
		);
	}
	return value;
}

/** Cuts a reply down to a short, secret-free excerpt for an error message (redacted before it is cut). */
export function excerpt(text: string, secrets: string[]): string {
	const clean = redact(text, secrets).replace(/\s+/g, ' ').trim();
	return clean.length > EXCERPT_LENGTH ? `${clean.slice(0, EXCERPT_LENGTH)}…` : clean;
}
