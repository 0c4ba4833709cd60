import type { IncomingMessage, ServerResponse } from "node:http";
import { ConfigurationError } from "../errors/configuration-error.js";
import { isPlainObject } from "../signing/canonical.js";
import { HANDLER_CORE, type HandlerCore, type IncomingNotification, type NotificationHandler, type Reply } from "./handler.js";
import { type BodyTimeout, bodyTimedOut, HttpRuleError, joinChunks, TOO_LARGE } from "./http-rules.js";

/** A node:http request, possibly after a framework's body parser set `body`. */
type NodeRequest = IncomingMessage & { body?: unknown };

/** A `(req, res)` listener for node:http and Express-style frameworks (Connect, Polka). */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

function readStream(req: NodeRequest, limit: number, timeout: BodyTimeout): Promise<unknown> {
	return new Promise((resolve, reject) => {
		const chunks: Uint8Array[] = [];
		let size = 0;
		// A flag instead of removing listeners: cheaper per request, and late events are ignored.
		let settled = false;
		// Node itself would wait for a slow body up to server.requestTimeout (300 s by default).
		const cancelTimer = timeout.start(() => {
			if (settled) return;
			settled = true;
			// The answer closes the connection, so the rest is never read.
			req.pause();
			reject(bodyTimedOut(timeout.ms));
		}, timeout.ms);
		req.on("data", (chunk: Uint8Array) => {
			if (settled) return;
			size += chunk.length;
			if (size > limit) {
				// Stop reading; the answer closes the connection, so the rest is never read.
				settled = true;
				cancelTimer();
				req.pause();
				resolve(TOO_LARGE);
				return;
			}
			chunks.push(chunk);
		});
		req.on("end", () => {
			if (settled) return;
			settled = true;
			cancelTimer();
			resolve(joinChunks(chunks, size));
		});
		req.on("error", (error) => {
			if (settled) return;
			settled = true;
			cancelTimer();
			reject(error);
		});
	});
}

/**
 * The body, from the stream when it is untouched, else from what a body parser
 * left in `req.body`: an object (express.json()), a string (express.text()) or
 * bytes (express.raw()). All verify the same way (see `verifyNotification`).
 */
function readBody(req: NodeRequest, limit: number, timeout: BodyTimeout): Promise<unknown> {
	if (!req.readableEnded) return readStream(req, limit, timeout);
	const parsed = req.body;
	if (typeof parsed === "string" || parsed instanceof Uint8Array) {
		return Promise.resolve(parsed.length > limit ? TOO_LARGE : parsed);
	}
	if (isPlainObject(parsed)) return Promise.resolve(parsed);
	return Promise.reject(
		new HttpRuleError(
			500,
			"The request body was consumed before the notification handler and req.body holds no JSON body; mount the route before other body parsers.",
			"body",
		),
	);
}

/** A class, not an object literal with a closure: one allocation per request. */
class NodeIncoming implements IncomingNotification {
	readonly method: string | undefined;
	readonly contentType: string | undefined;
	readonly contentLength: string | undefined;
	readonly #req: NodeRequest;
	constructor(req: NodeRequest) {
		this.#req = req;
		this.method = req.method;
		this.contentType = req.headers["content-type"];
		this.contentLength = req.headers["content-length"];
	}
	readBody(limit: number, timeout: BodyTimeout): Promise<unknown> {
		return readBody(this.#req, limit, timeout);
	}
}

/** The header list of a reply, built once per reply object: the common answers are shared constants. */
function headersOf(reply: Reply): string[] {
	if (reply.nodeHeaders) return reply.nodeHeaders;
	const headers = ["content-type", "application/json; charset=utf-8", "cache-control", "no-store", "content-length", String(Buffer.byteLength(reply.body))];
	if (reply.allow) headers.push("allow", reply.allow);
	if (reply.closeConnection) headers.push("connection", "close");
	reply.nodeHeaders = headers;
	return headers;
}

function send(res: ServerResponse, reply: Reply): void {
	if (res.headersSent) return;
	// A flat [name, value, ...] list: node:http writes it as is, without validating an object's keys one by one.
	res.writeHead(reply.status, headersOf(reply));
	res.end(reply.body);
}

const FALLBACK: Reply = {
	status: 500,
	body: JSON.stringify({ returnCode: "500", description: "The notification could not be processed; it will be retried." }),
};

/**
 * Adapts a handler from `createNotificationHandler` to node:http and Express
 * style `(req, res)`. It reads `req` itself when the stream is untouched, and
 * otherwise uses `req.body` as left by `express.json()`, `express.text()` or
 * `express.raw()`, so it works behind a body parser too. A body slower than
 * the handler's `bodyTimeoutMs` gets 408 and the connection is closed; also set
 * the server's own timeouts (see the README: `headersTimeout`, `requestTimeout`).
 *
 * @throws ConfigurationError when `handler` was not made by `createNotificationHandler`.
 */
export function toNodeListener(handler: NotificationHandler): NodeListener {
	const core = (handler as unknown as { [HANDLER_CORE]?: HandlerCore } | undefined)?.[HANDLER_CORE];
	if (typeof core !== "function") {
		throw new ConfigurationError([{ field: "handler", message: "must be a handler made by createNotificationHandler" }], "toNodeListener argument");
	}
	return (req, res) => {
		core(new NodeIncoming(req)).then(
			(reply) => send(res, reply),
			() => send(res, FALLBACK),
		);
	};
}
