import { LIMITS } from "./limits.js";

/** The body is larger than `LIMITS.bodyBytes`: thrown by a face's `text()`, turned into HTTP 413. */
export class BodyTooLargeError extends Error {
	constructor() {
		super(`The request body is larger than ${LIMITS.bodyBytes} bytes.`);
	}
}

/** The text of a request body streamed in chunks (the HTTP server's), refusing more than the limit. */
export async function readStreamText(chunks: AsyncIterable<Uint8Array>): Promise<string> {
	const parts: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of chunks) {
		size += chunk.byteLength;
		// Read to the end, so the client sees the 413 rather than a reset connection.
		if (size <= LIMITS.bodyBytes) parts.push(chunk);
	}
	if (size > LIMITS.bodyBytes) throw new BodyTooLargeError();
	return Buffer.concat(parts).toString("utf8");
}

/** The one place a request body is read: its text, or undefined when it is too large. */
export async function readBodyText(request: { text(): Promise<string> }): Promise<string | undefined> {
	let text: string;
	try {
		text = await request.text();
	} catch (error) {
		if (error instanceof BodyTooLargeError) return undefined;
		throw error;
	}
	// A face that read it whole (a Web Request) is held to the same limit. A UTF-16 unit is at most 3 UTF-8 bytes.
	if (text.length <= LIMITS.bodyBytes / 3) return text;
	return new TextEncoder().encode(text).byteLength > LIMITS.bodyBytes ? undefined : text;
}
