import type { SignVersion } from "../../signing/seal.js";
import { LIMITS } from "./limits.js";
import type { SandboxRequest } from "./request-response.js";

/** One request as the sandbox received it: what a test asserts the client sent. */
export interface ReceivedRequest {
	/** When it arrived, on the sandbox clock. */
	readonly receivedAt: Date;
	/** HTTP method, such as `POST`. */
	readonly method: string;
	/** The URL's path, without a trailing slash or the query: `/v2/checkout`. */
	readonly path: string;
	/** The full URL as received. */
	readonly url: string;
	/** The request's headers, as sent. */
	readonly headers: SandboxRequest["headers"];
	/** The body text exactly as received; empty when a fault dropped the connection before reading it. */
	readonly raw: string;
	/**
	 * The message's fields as sent, before any verification: `signature` and `signVersion` left out, a 2.1
	 * `payload` decoded, a form post's values as strings. Undefined when the body is no message (a page, bad JSON).
	 */
	readonly fields: Record<string, unknown> | undefined;
	/** The signing version the message claims, when it is a message. */
	readonly signVersion: SignVersion | undefined;
	/**
	 * Whether the signature verified with a key of the merchant the request names; undefined when the sandbox
	 * never checked (a page request, an unreadable body, or a fault responded first).
	 */
	readonly verified: boolean | undefined;
	/** The status responded with, `"dropped"` when a fault closed the connection, undefined while it is being handled. */
	readonly status: number | "dropped" | undefined;
}

/**
 * A record the sandbox fills in as it handles the request. It keeps the message's claimed
 * fields as read; `signature` and `signVersion` are left out when a test reads the record.
 */
export type ReceivedEntry = { -readonly [K in Exclude<keyof ReceivedRequest, "fields">]: ReceivedRequest[K] } & {
	claimed: Readonly<Record<string, unknown>> | undefined;
};

/** A record as a test reads it. */
export function receivedView(entry: ReceivedEntry): ReceivedRequest {
	const { claimed, ...rest } = entry;
	if (claimed === undefined) return { ...rest, fields: undefined };
	const { signature: _signature, signVersion: _version, ...fields } = claimed;
	return { ...rest, fields };
}

/** The requests a sandbox received, oldest first. */
export interface ReceivedLog {
	/** Every request kept (the last 100), or only those to `path`. */
	all(path?: string): ReceivedRequest[];
	/** How many requests to `path` (or in all) are kept. */
	count(path?: string): number;
	/** The most recent request (to `path`), if any. */
	last(path?: string): ReceivedRequest | undefined;
	/** Forgets every request received so far. */
	clear(): void;
}

/** Trailing slashes do not make another path: `/v2/checkout/` is `/v2/checkout`. */
export function normalPath(path: string): string {
	return path.replace(/\/+$/, "") || "/";
}

/** The log behind `sandbox.received`. */
export class RequestLog implements ReceivedLog {
	readonly #entries: ReceivedEntry[] = [];

	/** Starts a record for a request that just arrived; the router fills it in as it goes. */
	add(entry: ReceivedEntry): ReceivedEntry {
		this.#entries.push(entry);
		if (this.#entries.length > LIMITS.receivedRequests) this.#entries.shift();
		return entry;
	}

	all(path?: string): ReceivedRequest[] {
		const wanted = path === undefined ? undefined : normalPath(path);
		return this.#entries.filter((entry) => wanted === undefined || entry.path === wanted).map(receivedView);
	}

	count(path?: string): number {
		return this.all(path).length;
	}

	last(path?: string): ReceivedRequest | undefined {
		return this.all(path).at(-1);
	}

	clear(): void {
		this.#entries.length = 0;
	}
}
