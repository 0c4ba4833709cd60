import { type BodyTimeout, bodyTimedOut, bodyTooLarge, joinChunks } from "./http-rules.js";

/** Receives a body's chunks as they arrive. */
export interface ChunkSink {
	/** One more chunk; false once the sink wants no more (the limit was passed, or it gave up). */
	chunk(chunk: Uint8Array): boolean;
	/** The body ended. */
	end(): void;
	/** The connection failed. */
	fail(error: unknown): void;
}

/** Where a body comes from: a Web stream's reader or a node:http request, as each adapter wraps it. */
export interface ChunkSource {
	/** Starts handing chunks to `sink`. */
	start(sink: ChunkSink): void;
	/** Stops reading: the rest of the body is never pulled (the response closes the connection). */
	stop(): void;
}

/**
 * Reads a body whole, the one loop both server adapters use: it stops once more than `limit` bytes
 * arrived (413) or once `timeout.ms` passed (408), and rejects then without reading the rest.
 */
export function readChunks(source: ChunkSource, limit: number, timeout: BodyTimeout): Promise<Uint8Array> {
	return new Promise((resolve, reject) => {
		const chunks: Uint8Array[] = [];
		let size = 0;
		// A flag instead of removing listeners: cheaper per request, and late events are ignored.
		let settled = false;
		const settle = (then: () => void) => {
			settled = true;
			cancelTimer();
			then();
		};
		const stop = (error: unknown) =>
			settle(() => {
				source.stop();
				reject(error);
			});
		// Node itself would wait for a slow body up to server.requestTimeout (300 s by default).
		const cancelTimer = timeout.start(() => {
			if (!settled) stop(bodyTimedOut(timeout.ms));
		}, timeout.ms);
		source.start({
			chunk(chunk) {
				if (settled) return false;
				size += chunk.length;
				if (size <= limit) {
					chunks.push(chunk);
					return true;
				}
				stop(bodyTooLarge(limit));
				return false;
			},
			end() {
				if (!settled) settle(() => resolve(joinChunks(chunks, size)));
			},
			fail(error) {
				if (!settled) settle(() => reject(error));
			},
		});
	});
}
