import { type EndpointName, endpointAt } from "../../endpoints.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { type ApiMessage, readMessage } from "../wire/authentication.js";
import { normalPath, type ReceivedEntry } from "../wire/received-log.js";
import { readBodyText } from "../wire/request-body.js";
import type { SandboxRequest } from "../wire/request-response.js";
import { type ApiResponse, badRequest, isApiResponse } from "../wire/spec-responses.js";

/** A request read once and recorded: what every handler works from. */
export interface Arrived {
	request: SandboxRequest;
	url: URL;
	/** The URL's path without a trailing slash. */
	path: string;
	/** Where links in the response point. */
	origin: string;
	body: string;
	/** The endpoint of the table at this path, if any. */
	endpoint: EndpointName | undefined;
	/** On an API path: the message as sent, or the response refusing the body. */
	message: ApiMessage | ApiResponse | undefined;
	received: ReceivedEntry;
}

/** The record a request starts with in `sandbox.received`. */
export function arrivalRecord(core: SandboxCore, request: SandboxRequest, url: URL): ReceivedEntry {
	return {
		receivedAt: core.clock.now(),
		method: request.method,
		path: normalPath(url.pathname),
		url: request.url,
		headers: request.headers,
		raw: "",
		claimed: undefined,
		signVersion: undefined,
		verified: undefined,
		status: undefined,
	};
}

/** Reads the body (the one place it is read) and, on an API path, the message in it; a 413 when it is too large. */
export async function readRequest(
	request: SandboxRequest,
	url: URL,
	origin: string,
	received: ReceivedEntry,
): Promise<Arrived | ApiResponse> {
	const body = await readBodyText(request);
	if (body === undefined) return badRequest("The request body is larger than 1 MiB.", 413);
	received.raw = body;
	const path = received.path;
	const endpoint = endpointAt(path);
	let message: ApiMessage | ApiResponse | undefined;
	if (endpoint !== undefined) {
		// Only the checkout endpoint takes a browser's form post (DIRECT_POST).
		message = readMessage(body, request.headers.get("content-type"), endpoint === "checkout");
		if (!isApiResponse(message)) {
			received.claimed = message.claimed;
			received.signVersion = typeof message.envelope.body.payload === "string" ? "2.1" : "2.0";
		}
	}
	return { request, url, path, origin, body, endpoint, message, received };
}
