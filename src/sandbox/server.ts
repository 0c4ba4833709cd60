import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isLoopbackHost } from "../schemas/fields.js";
import type { SandboxOptions } from "./options.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

export interface SandboxServerOptions extends SandboxOptions {
	/** Serve this sandbox instead of creating one from the other options. @default a new sandbox */
	sandbox?: Sandbox | undefined;
	/** TCP port; 0 picks a free one. @default 0 */
	port?: number | undefined;
	/** Interface to listen on. Only loopback addresses unless `allowNonLoopback` is set. @default "127.0.0.1" */
	host?: string | undefined;
	/** Listen on a non-loopback interface (a shared test host, a container). @default false */
	allowNonLoopback?: boolean | undefined;
	/** The origin that links in answers point to, when the server sits behind a proxy. @default the listening address */
	publicUrl?: string | undefined;
}

export interface SandboxServer {
	/** The origin the server answers on, such as `http://127.0.0.1:43121`. */
	readonly url: string;
	readonly port: number;
	readonly sandbox: Sandbox;
	/** Stops the server (and the sandbox, when the server created it). */
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_048_576;

/** The sandbox over real HTTP: /v2 API, hosted checkout page, 3DS page. */
export async function startSandboxServer(options: SandboxServerOptions = {}): Promise<SandboxServer> {
	const host = options.host ?? "127.0.0.1";
	const bare = host.replace(/^\[|\]$/g, "");
	if (!options.allowNonLoopback && !(isLoopbackHost(host) || bare === "::1")) {
		throw new RangeError(`The sandbox listens on loopback only; host ${host} needs allowNonLoopback: true.`);
	}
	const owned = options.sandbox === undefined;
	const sandbox = options.sandbox ?? (await createSandbox(options));
	let origin = options.publicUrl?.replace(/\/+$/, "");
	const server = createServer((req, res) => {
		void serve(sandbox, req, res, () => origin ?? "");
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port ?? 0, bare, () => {
			server.off("error", reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const shownHost = bare.includes(":") ? `[${bare}]` : bare;
	origin ??= `http://${shownHost === "0.0.0.0" ? "127.0.0.1" : shownHost}:${port}`;
	const url = origin;
	return {
		url,
		port,
		sandbox,
		close: () =>
			new Promise<void>((resolve) => {
				if (owned) sandbox.close();
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

async function serve(sandbox: Sandbox, req: IncomingMessage, res: ServerResponse, origin: () => string): Promise<void> {
	try {
		const body = await readBody(req);
		if (body === undefined) {
			res.writeHead(413, { "content-type": "application/json" }).end(JSON.stringify({ status: "error", message: "The request body is larger than 1 MiB." }));
			return;
		}
		const headers = new Headers();
		for (const [name, value] of Object.entries(req.headers)) {
			if (typeof value === "string") headers.set(name, value);
			else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
		}
		const method = req.method ?? "GET";
		const request = new Request(new URL(req.url ?? "/", origin()), {
			method,
			headers,
			...(method === "GET" || method === "HEAD" ? {} : { body: new Uint8Array(body) }),
		});
		const response = await sandbox.fetch(request, { origin: origin() });
		const out = Buffer.from(await response.arrayBuffer());
		const responseHeaders: Record<string, string> = {};
		response.headers.forEach((value, name) => {
			responseHeaders[name] = value;
		});
		res.writeHead(response.status, responseHeaders);
		res.end(method === "HEAD" ? undefined : out);
	} catch {
		if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
		res.end(JSON.stringify({ status: "error", message: "The sandbox failed to handle this request." }));
	}
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) tooLarge = true;
			else if (!tooLarge) chunks.push(chunk);
		});
		req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
		req.on("error", reject);
	});
}
