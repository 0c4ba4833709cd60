import { ConfigurationError } from "../../errors/configuration-error.js";
import { isPlainObject } from "../../internal/plain-object.js";
import { type ChunkSource, readChunks } from "./body-reader.js";
import type { DeliveryHandler, NotificationDelivery, NotificationResponse } from "./exchange.js";
import { type BodyTimeout, bodyTooLarge, HttpRuleError, responseHeaders } from "./http-rules.js";

/**
 * What the listener reads of a node:http `IncomingMessage` (Express's `req` is one), possibly after a
 * body parser set `body`. Written out here so the package's types do not need Node's.
 */
export interface NodeRequestLike {
	/** The HTTP method: the handler responds 405 to anything but POST. */
	readonly method?: string | undefined;
	/** Request headers, names in lower case. */
	readonly headers: Readonly<Record<string, string | string[] | undefined>>;
	/** True once a body parser has read the stream. */
	readonly readableEnded: boolean;
	/** What a body parser left: a parsed object, text or bytes. */
	readonly body?: unknown;
	/** Reads the body as it arrives. */
	on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
	/** Called once the whole body was read. */
	on(event: "end", listener: () => void): unknown;
	/** Called when the connection fails while the body is read. */
	on(event: "error", listener: (error: Error) => void): unknown;
	/** Stops reading a body that is too large or too slow. */
	pause(): unknown;
}

/** What the listener writes to a node:http `ServerResponse` (Express's `res` is one). */
export interface NodeResponseLike {
	/** Whether a response was started already (then the listener leaves it alone). */
	readonly headersSent: boolean;
	/** Starts the response. */
	writeHead(status: number, headers: Record<string, string>): unknown;
	/** Sends the JSON body and ends the response. */
	end(body: string): unknown;
}

/** A `(req, res)` listener for node:http and Express-style frameworks (Connect, Polka). */
export type NodeListener = (req: NodeRequestLike, res: NodeResponseLike) => void;

/** A header as one string: node:http gives repeated headers as a list. */
function headerOf(req: NodeRequestLike, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value.join(", ") : value;
}

/** A node:http request's chunks, as its events bring them; stopping pauses it. */
function requestSource(req: NodeRequestLike): ChunkSource {
	return {
		start(sink) {
			req.on("data", (chunk: Uint8Array) => void sink.chunk(chunk));
			req.on("end", () => sink.end());
			req.on("error", (error) => sink.fail(error));
		},
		stop() {
			req.pause();
		},
	};
}

/**
 * The body, from the stream when it is untouched, else from what a body parser
 * left in `req.body`: an object (express.json()), a string (express.text()) or
 * bytes (express.raw()). All verify the same way (see `verifyNotification`).
 */
function readBody(req: NodeRequestLike, limit: number, timeout: BodyTimeout): Promise<unknown> {
	if (!req.readableEnded) return readChunks(requestSource(req), limit, timeout);
	const parsed = req.body;
	if (typeof parsed === "string" || parsed instanceof Uint8Array) {
		return parsed.length > limit ? Promise.reject(bodyTooLarge(limit)) : Promise.resolve(parsed);
	}
	if (isPlainObject(parsed)) return Promise.resolve(parsed);
	return Promise.reject(
		new HttpRuleError(
			500,
			"The request body was consumed before the notification handler and req.body holds no JSON body; " +
				"mount the route before other body parsers.",
			"body",
		),
	);
}

/** A node:http request as the handler sees it. */
function nodeDelivery(req: NodeRequestLike): NotificationDelivery {
	return {
		method: req.method,
		contentType: headerOf(req, "content-type"),
		contentLength: headerOf(req, "content-length"),
		readBody: (limit, timeout) => readBody(req, limit, timeout),
	};
}

function send(res: NodeResponseLike, response: NotificationResponse): void {
	if (res.headersSent) return;
	const length = new TextEncoder().encode(response.body).length;
	res.writeHead(response.status, { ...responseHeaders(response), "content-length": String(length) });
	res.end(response.body);
}

/** The response when the handler itself failed, which it is written never to do. */
const FALLBACK: NotificationResponse = {
	status: 500,
	body: JSON.stringify({
		returnCode: "500",
		description: "The notification could not be processed; it will be retried.",
	}),
};

/**
 * Adapts a handler from `createNotificationHandler` to node:http and Express
 * style `(req, res)`: each request goes to the handler's `handle` method. It
 * reads `req` itself when the stream is untouched, and otherwise uses
 * `req.body` as left by `express.json()`, `express.text()` or `express.raw()`,
 * so it works behind a body parser too. A body over the handler's
 * `maxBodyBytes` gets 413 and one slower than its `bodyTimeoutMs` gets 408,
 * both without reading the rest, and the connection is closed; also set the
 * server's own timeouts (see the README: `headersTimeout`, `requestTimeout`).
 *
 * @throws ConfigurationError when `handler` was not made by `createNotificationHandler`.
 */
export function toNodeListener(handler: DeliveryHandler): NodeListener {
	if (typeof handler?.handle !== "function") {
		throw new ConfigurationError(
			[{ field: "handler", message: "must be a handler made by createNotificationHandler" }],
			"toNodeListener argument",
		);
	}
	return (req, res) => {
		handler.handle(nodeDelivery(req)).then(
			(response) => send(res, response),
			() => send(res, FALLBACK),
		);
	};
}
