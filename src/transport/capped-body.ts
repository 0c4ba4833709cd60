/**
 * Responses whose body stops at a byte limit, counted as the body stream yields its bytes, that is
 * after fetch undid any content encoding. Past the limit the stream fails and is cancelled, which
 * closes the connection: an endless response or a decompression bomb costs at most the limit and one
 * chunk. (A set rather than a `Response` subclass: naming `Response` while the SDK loads would load
 * Node's fetch implementation on import.)
 */
const cut = new WeakSet<Response>();

/** Whether `response`'s body passed its limit, so that reading it failed with {@link BodyTooLargeError}. */
export const wasCut = (response: Response): boolean => cut.has(response);

/** What reading a capped body fails with past its limit. */
export class BodyTooLargeError extends RangeError {
	constructor(limitBytes: number) {
		super(`The response body is larger than ${limitBytes} bytes.`);
		this.name = "BodyTooLargeError";
	}
}

/** Statuses whose response never has a body (a Response cannot be built with one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `response` with its body capped at `limitBytes`; a response without a body is returned as it is. */
export function capBody(response: Response, limitBytes: number): Response {
	if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
	const reader = response.body.getReader();
	let size = 0;
	const body = new ReadableStream<Uint8Array>({
		async pull(controller) {
			const { done, value } = await reader.read();
			if (done) return controller.close();
			size += value.byteLength;
			if (size <= limitBytes) return controller.enqueue(value);
			cut.add(capped);
			controller.error(new BodyTooLargeError(limitBytes));
			await reader.cancel();
		},
		cancel: (reason) => reader.cancel(reason),
	});
	const init = { status: response.status, statusText: response.statusText, headers: response.headers };
	const capped = new Response(body, init);
	return capped;
}
