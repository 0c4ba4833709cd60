import type { NotificationDelivery, NotificationResponse } from "./handler-types.js";
import {
	type BodyTimeout,
	bodyTimedOut,
	bodyTooLarge,
	HttpRuleError,
	joinChunks,
	responseHeaders,
} from "./http-rules.js";

/** The Web side of the handler: a `Request` becomes a delivery, a handler's response becomes a Web `Response`. */

/** The handler's response as a Web `Response`. */
export function toResponse(response: NotificationResponse): Response {
	return new Response(response.body, { status: response.status, headers: responseHeaders(response) });
}

async function readLimited(request: Request, limit: number, timeout: BodyTimeout): Promise<unknown> {
	if (request.bodyUsed) {
		throw new HttpRuleError(
			500,
			"The request body was read by other code before the notification handler; pass the untouched request.",
			"body",
		);
	}
	if (!request.body) return "";
	const reader = request.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	let timedOut = false;
	// Cancelling the stream ends the pending read, which then sees the flag.
	const cancelTimer = timeout.start(() => {
		timedOut = true;
		reader.cancel().catch(() => {});
	}, timeout.ms);
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (timedOut) throw bodyTimedOut(timeout.ms);
			if (done) break;
			size += value.length;
			if (size > limit) {
				// Stop here: the rest is never pulled.
				reader.cancel().catch(() => {});
				throw bodyTooLarge(limit);
			}
			chunks.push(value);
		}
	} finally {
		cancelTimer();
	}
	return joinChunks(chunks, size);
}

/** A Web `Request` as the handler sees it. */
export function deliveryOf(request: Request): NotificationDelivery {
	return {
		method: request.method,
		contentType: request.headers.get("content-type"),
		contentLength: request.headers.get("content-length"),
		readBody: (limit, timeout) => readLimited(request, limit, timeout),
	};
}
