/**
 * The transport-neutral request and answer the sandbox core works with. A Web
 * `Request` already is a `SandboxRequest`; the HTTP server builds a lighter one
 * straight from `node:http`, and each face turns a `SandboxReply` into its own
 * response type.
 */
export interface SandboxRequest {
	/** HTTP method, such as `POST`. */
	method: string;
	/** Absolute URL (path and query are what matter). */
	url: string;
	/** Request headers, read by name (any case). */
	headers: {
		/** The header's value, or null when absent. */
		get(name: string): string | null;
	};
	/** The body as text. */
	text(): Promise<string>;
}

/** The sandbox's answer to a `SandboxRequest`. */
export interface SandboxReply {
	/** HTTP status. */
	status: number;
	/** Response headers. */
	headers: Record<string, string>;
	/** Response body (JSON or HTML), empty for redirects. */
	body: string;
}

/** A reply as a Web `Response` (the `fetch` and MSW faces). */
export function toResponse(reply: SandboxReply): Response {
	const empty =
		reply.status === 204 || reply.status === 304 || (reply.status >= 300 && reply.status < 400 && reply.body === "");
	return new Response(empty ? null : reply.body, { status: reply.status, headers: reply.headers });
}
