/**
 * The transport-neutral request and response the sandbox works with. A Web
 * `Request` already is a `SandboxRequest`; the HTTP server builds a lighter one
 * straight from `node:http`, and each face turns a `SandboxResponse` into its own
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
	/** Aborts when the client goes away: a request the sandbox holds back is then let go. @default never aborts */
	readonly signal?: AbortSignal | undefined;
}

/**
 * How a faulty gateway ends a connection (see `SandboxFault.drop`): `before-response` closes it
 * without a byte of response; `mid-body` sends the status, the headers and half of the body, then closes it.
 */
export type ConnectionDrop = "before-response" | "mid-body";

/** The sandbox's response to a `SandboxRequest`. */
export interface SandboxResponse {
	/** HTTP status. */
	status: number;
	/** Response headers. */
	headers: Record<string, string>;
	/** Response body (JSON or HTML), empty for redirects. */
	body: string;
	/** Set when a fault drops the connection instead of responding normally. @default undefined: a normal response */
	drop?: ConnectionDrop | undefined;
}

/** The part of a body a `mid-body` drop sends before it closes the connection. */
export function cutBody(body: string): string {
	return body.slice(0, Math.floor(body.length / 2));
}

/** A sandbox response as a Web `Response` (the `fetch` and MSW faces); a dropped connection is a network error. */
export function toResponse(sandboxResponse: SandboxResponse): Response {
	const { status, headers, body, drop } = sandboxResponse;
	if (drop === "before-response") return Response.error();
	const empty = status === 204 || status === 304 || (status >= 300 && status < 400 && body === "");
	if (drop === "mid-body") {
		// The full length announced, so the client knows the body it got was cut short.
		const length = String(new TextEncoder().encode(body).byteLength);
		return new Response(brokenStream(body), { status, headers: { ...headers, "content-length": length } });
	}
	return new Response(empty ? null : body, { status, headers });
}

/** A body stream that yields the first half of `body`, then fails as a connection reset would. */
function brokenStream(body: string): ReadableStream<Uint8Array> {
	return new ReadableStream({
		start(controller) {
			controller.enqueue(new TextEncoder().encode(cutBody(body)));
		},
		// Fails only when more is asked for, a turn of the event loop later, so the status and headers go out first.
		async pull(controller) {
			await new Promise((resolve) => setTimeout(resolve, 0));
			controller.error(new TypeError("The sandbox dropped the connection in the middle of the response."));
		},
	});
}
