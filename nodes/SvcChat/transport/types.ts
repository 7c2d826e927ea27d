// The transport's shared types: credentials, request options, replies and explained failures.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

import type { SvcErrorText } from './errors';

export const CREDENTIALS_TYPE = 'svcApi';

export type SvcApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** The fields of the `svcApi` credentials. */
export interface SvcCredentials {
	host: string;
	email: string;
	password: string;
	ignoreSslIssues?: boolean;
}

export interface SvcRequestOptions<Query extends IDataObject = IDataObject> {
	qs?: Query;
	body?: IDataObject;
	/** Put on the thrown NodeApiError so n8n shows which item failed. */
	itemIndex?: number;
	/**
	 * Makes the request one that is never retried once it may have reached the server (a reset, a timeout, a 5xx),
	 * because a second attempt could do harm or fail misleadingly; says why, and is added to the error's fix.
	 */
	notRetried?: string;
}

/** What the transport needs from a reply; n8n's `returnFullResponse` gives exactly this. */
export interface SvcHttpResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/** Sends one HTTP request as given (Basic auth is already in it); the nodes and the tests each bring their own. */
export type SvcSend = (options: IHttpRequestOptions) => Promise<SvcHttpResponse>;

/** A failure the transport has already explained; callers turn it into a NodeApiError. */
export interface SvcFailure {
	text: SvcErrorText;
	httpCode?: number;
	/** The API's error code (spec 7), or the transport's own: invalid-host, redirect, not-json, unexpected-shape, chat-not-found. */
	code?: string;
	/** The system error code when the server could not be reached (ECONNRESET, ENOTFOUND…). */
	networkCode?: string;
	/** The error members of the reply (error, field, argument, field_name, field_value). */
	reply?: IDataObject;
}

export type SvcOutcome<T> = { ok: true; reply: T } | { ok: false; failure: SvcFailure };
