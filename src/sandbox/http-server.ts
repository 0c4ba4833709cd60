import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as z from "zod/mini";
import { flag, parseOptions } from "../internal/options.js";
import { isLoopbackHost } from "../schemas/fields.js";
import { lazySchema } from "../schemas/lazy.js";
import { handleControl, isControlPath } from "./control/control-api.js";
import type { SandboxCore } from "./core/sandbox-core.js";
import type { SandboxOptions } from "./core/sandbox-options.js";
import { coreOf, createSandbox, type Sandbox } from "./create-sandbox.js";
import { readStreamText } from "./wire/request-body.js";
import { cutBody, type SandboxRequest, type SandboxResponse } from "./wire/request-response.js";

/** Options of `startSandboxServer`: the sandbox's own, and where to listen. */
export interface SandboxServerOptions extends SandboxOptions {
	/** Serve this sandbox instead of creating one from the other options. @default a new sandbox */
	sandbox?: Sandbox | undefined;
	/** TCP port; 0 picks a free one. @default 0 */
	port?: number | undefined;
	/** Interface to listen on. Only loopback addresses unless `allowNonLoopback` is set. @default "127.0.0.1" */
	host?: string | undefined;
	/** Listen on a non-loopback interface (a shared test host, a container). @default false */
	allowNonLoopback?: boolean | undefined;
	/** The origin links in responses point to, when the server sits behind a proxy. @default the listening address */
	publicUrl?: string | undefined;
	/**
	 * The control API's credential (at least 16 characters). With it the server also serves `/control`:
	 * list transactions, approve or reject held refunds, list and resend IPNs, move the clock, for requests
	 * from this machine that carry `Authorization: Bearer <controlToken>`. `connectSandbox` is its client.
	 * @default no control API
	 */
	controlToken?: string | undefined;
}

/** A sandbox served over HTTP on loopback. */
export interface SandboxServer {
	/** The origin the server responds on, such as `http://127.0.0.1:43121`. */
	readonly url: string;
	/** The TCP port it listens on. */
	readonly port: number;
	/** The sandbox it serves: inspect transactions and deliveries, move its clock. */
	readonly sandbox: Sandbox;
	/** Stops the server (and the sandbox, when the server created it: its state directory is then released). */
	close(): Promise<void>;
}

const LOOPBACK_RULE =
	"must be a loopback address (the sandbox listens on loopback only), or set allowNonLoopback: true";
const TOKEN_RULE = "must be at least 16 characters: it is all that stands between other local users and the controls";

/** The server's own option rules (the sandbox's are checked where the sandbox is made). */
const serverOptions = lazySchema(() =>
	z
		.looseObject({
			host: z._default(z.string({ error: "must be a string" }), "127.0.0.1"),
			allowNonLoopback: flag(false),
			controlToken: z.optional(z.string({ error: TOKEN_RULE }).check(z.minLength(16, TOKEN_RULE))),
		})
		.check(
			z.superRefine((given, context) => {
				if (typeof given.host !== "string") return;
				const bare = given.host.replace(/^\[|\]$/g, "");
				if (given.allowNonLoopback || isLoopbackHost(given.host) || bare === "::1") return;
				context.issues.push({
					code: "custom",
					message: `${given.host} ${LOOPBACK_RULE}`,
					path: ["host"],
					input: given,
				});
			}),
		),
);

/** The sandbox over real HTTP: /v2 API, hosted checkout page, 3DS page. */
export async function startSandboxServer(options: SandboxServerOptions = {}): Promise<SandboxServer> {
	const { host, controlToken } = parseOptions(serverOptions, options, "sandbox server options");
	const bare = host.replace(/^\[|\]$/g, "");
	const owned = options.sandbox === undefined;
	const sandbox = options.sandbox ?? (await createSandbox(options));
	const core = coreOf(sandbox);
	const control = controlToken !== undefined && core ? { core, token: controlToken } : undefined;
	let origin = options.publicUrl?.replace(/\/+$/, "");
	const server = createServer((req, res) => {
		void serve(sandbox, control, req, res, () => origin ?? "");
	});
	try {
		await new Promise<void>((resolve, reject) => {
			server.once("error", reject);
			server.listen(options.port ?? 0, bare, () => {
				server.off("error", reject);
				resolve();
			});
		});
	} catch (error) {
		// A sandbox made here would otherwise keep its timers, and its state directory locked.
		if (owned) await sandbox.close();
		throw error;
	}
	const port = (server.address() as AddressInfo).port;
	const shownHost = bare.includes(":") ? `[${bare}]` : bare;
	origin ??= `http://${shownHost === "0.0.0.0" ? "127.0.0.1" : shownHost}:${port}`;
	return {
		url: origin,
		port,
		sandbox,
		close: async () => {
			// The sandbox first: an IPN in flight to this very server is abandoned, not failed by the closing.
			const sandboxClosed = owned ? sandbox.close() : undefined;
			const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await Promise.all([serverClosed, sandboxClosed]);
		},
	};
}

/** What the control API needs: the sandbox's parts and the credential. */
interface ControlMount {
	core: SandboxCore;
	token: string;
}

async function serve(
	sandbox: Sandbox,
	control: ControlMount | undefined,
	req: IncomingMessage,
	res: ServerResponse,
	origin: () => string,
): Promise<void> {
	try {
		const method = req.method ?? "GET";
		// Only the headers: `sandbox.received` keeps them, and must not keep the whole request alive.
		const headers = req.headers;
		let gone: AbortController | undefined;
		// A plain SandboxRequest: no Web Request, Headers or stream objects on the hot path.
		const request: SandboxRequest = {
			method,
			url: new URL(req.url ?? "/", origin()).href,
			headers: { get: (name) => headerValue(headers[name.toLowerCase()]) },
			text: () => readStreamText(req),
			// Made when asked for (only a held request asks): aborts when the client closes the connection.
			get signal() {
				if (!gone) {
					const controller = new AbortController();
					res.once("close", () => {
						if (!res.writableFinished) controller.abort();
					});
					gone = controller;
				}
				return gone.signal;
			},
		};
		const response = !isControlPath(req.url ?? "/")
			? await sandbox.handle(request, { origin: origin() })
			: control
				? await handleControl(control.core, control.token, request, req.socket.remoteAddress)
				: NO_CONTROL;
		if (response.drop !== undefined) return dropConnection(req, res, response);
		res.writeHead(response.status, response.headers);
		res.end(method === "HEAD" ? undefined : response.body);
	} catch {
		if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
		res.end(JSON.stringify({ status: "error", message: "The sandbox failed to handle this request." }));
	}
}

/** The control API of a server without a credential: there is none, and the 404 says how to get one. */
const NO_CONTROL: SandboxResponse = {
	status: 404,
	headers: { "content-type": "application/json" },
	body: JSON.stringify({
		status: "error",
		message: "This sandbox has no control API: start it with --state-dir (or controlToken).",
	}),
};

/** A fault's dropped connection: nothing at all, or the status, the headers and half the body. */
function dropConnection(req: IncomingMessage, res: ServerResponse, response: SandboxResponse): void {
	if (response.drop === "mid-body") {
		const length = Buffer.byteLength(response.body);
		res.writeHead(response.status, { ...response.headers, "content-length": String(length) });
		res.write(cutBody(response.body), () => req.socket.destroy());
		return;
	}
	req.socket.destroy();
}

function headerValue(value: string | string[] | undefined): string | null {
	if (value === undefined) return null;
	return Array.isArray(value) ? value.join(", ") : value;
}
