import { HttpResponse, http, type RequestHandler } from "msw";
import type { Sandbox } from "./create-sandbox.js";
import { toResponse } from "./wire/request-response.js";

/** Options of `sandboxHandlers`. */
export interface SandboxHandlersOptions {
	/** The origin the handlers respond on; the client's baseUrl must match it. @default sandbox.baseUrl */
	baseUrl?: string | undefined;
}

/**
 * MSW request handlers that route every request under `baseUrl` to the sandbox:
 * `setupServer(...sandboxHandlers(sandbox))` and the client talks to it in-process.
 * Requests elsewhere (the merchant's own IPN receiver, say) are left to other handlers.
 */
export function sandboxHandlers(sandbox: Sandbox, options: SandboxHandlersOptions = {}): RequestHandler[] {
	const base = (options.baseUrl ?? sandbox.baseUrl).replace(/\/+$/, "");
	return [
		http.all(`${base}/*`, async ({ request }) => {
			const response = await sandbox.handle(request, { origin: base });
			// A fault's dropped connection is a network error; a cut response, a body that fails half-way.
			if (response.drop !== undefined)
				return response.drop === "mid-body" ? toResponse(response) : HttpResponse.error();
			// An HttpResponse, so MSW treats it as a mocked response, redirects included.
			const { body, status, headers } = response;
			return new HttpResponse(body === "" ? null : body, { status, headers });
		}),
	];
}
