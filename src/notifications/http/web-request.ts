import { type ChunkSource, readChunks } from "./body-reader.js";
import type { NotificationDelivery, NotificationResponse } from "./exchange.js";
import { type BodyTimeout, HttpRuleError, responseHeaders } from "./http-rules.js";

/** The Web side of the handler: a `Request` becomes a delivery, a handler's response becomes a Web `Response`. */

/** The handler's response as a Web `Response`. */
export function toResponse(response: NotificationResponse): Response {
	return new Response(response.body, { status: response.status, headers: responseHeaders(response) });
}

/** A stream's chunks, pulled one read at a time; stopping cancels the stream, which ends a pending read. */
function streamSource(stream: ReadableStream<Uint8Array>): ChunkSource {
	const reader = stream.getReader();
	return {
		start(sink) {
			(async () => {
				for (;;) {
					const { done, value } = await reader.read();
					if (done) return sink.end();
					if (!sink.chunk(value)) return;
				}
			})().catch((error: unknown) => sink.fail(error));
		},
		stop() {
			reader.cancel().catch(() => {});
		},
	};
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
	return readChunks(streamSource(request.body), limit, timeout);
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
