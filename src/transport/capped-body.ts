/**
 * Response bodies read in full within the attempt that fetched them, up to a byte limit counted as the
 * body stream yields its bytes, that is after fetch undid any content encoding. Reading inside the
 * attempt puts the body under the attempt's timeout, so a gateway that trickles its body times the
 * attempt out like one that never answers, and a query is retried either way. Past the limit reading
 * stops and the stream is cancelled, which closes the connection: an endless response or a
 * decompression bomb costs at most the limit and one chunk. (A set marks the cut responses rather than
 * a `Response` subclass: naming `Response` while the SDK loads would load Node's fetch on import.)
 */
const cut = new WeakSet<Response>();

/** Whether `response`'s body passed its limit: it was left unread past it, and its text is unknown. */
export const wasCut = (response: Response): boolean => cut.has(response);

/** Statuses whose response never has a body (a Response cannot be built with one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `response` with its body read into memory, at most `limitBytes` of it; past the limit, a response
 * without a body that {@link wasCut} reports. A response without a body is returned as it is.
 */
export async function readCapped(response: Response, limitBytes: number): Promise<Response> {
	if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
	const init = { status: response.status, statusText: response.statusText, headers: response.headers };
	const reader = response.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limitBytes) {
			await reader.cancel();
			const capped = new Response(null, init);
			cut.add(capped);
			return capped;
		}
		chunks.push(value);
	}
	const body = new Uint8Array(size);
	let at = 0;
	for (const chunk of chunks) {
		body.set(chunk, at);
		at += chunk.byteLength;
	}
	return new Response(body, init);
}
