import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe } from "vitest";
import {
	AuthenticationError,
	CheckoutError,
	ConnectionError,
	GatewayClient,
	GatewayValidationError,
	InvalidResponseError,
	NoS2SProviderError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
	ResponseTooLargeError,
	SignatureVerificationError,
	TimeoutError,
} from "../../src/index.js";
import { loadPrivateKey } from "../../src/signing/index.js";
import { cardParams, checkoutParams } from "../client/helpers.js";
import { checkoutCreated, ids, refund, transaction } from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import {
	type ErrorClass,
	expectCoveredBySigned,
	expectNoPollution,
	type Signed,
	typedOutcomeAsync,
	violation,
} from "./support/checks.js";
import { anything } from "./support/inputs.js";
import { unicodePiece } from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";
import { gatewayPublicKey, messageCases, signedMessages, variantOf, type Wrapping } from "./support/signed.js";

/**
 * The client's response handling, against a gateway on a loopback HTTP server that responds to each
 * call with a fuzzed status, headers and body: mutated signed responses of the endpoint (both
 * versions, flat or wrapped), error bodies of every shape (deep nesting, odd types), or
 * text that is no response at all. Every call may only throw the client's typed errors
 * (below); a create is sent once; what a call returns from a verified response is content
 * that response's signature covers.
 *
 * A real server rather than MSW: MSW's emulated sockets end a response while undici's parser
 * may still be paused, and undici then throws an uncatchable assertion (nodejs/undici#5360),
 * which no real socket reproduced here.
 */

let baseUrl = "";

const ALLOWED: readonly ErrorClass[] = [
	AuthenticationError,
	CheckoutError,
	ConnectionError,
	GatewayValidationError,
	InvalidResponseError,
	NoS2SProviderError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
	ResponseTooLargeError,
	SignatureVerificationError,
	TimeoutError,
];

type Endpoint = "checkout" | "card" | "transactionQuery" | "refund" | "refundQuery";

interface EndpointSpec {
	fields: Record<string, unknown>;
	wrapping: Wrapping;
	kind: "create" | "query";
}

const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
	checkout: { fields: checkoutCreated(), wrapping: "never", kind: "create" },
	card: {
		fields: { transactionId: ids.transaction, url: "https://acs.example/3ds?id=1" },
		wrapping: "always",
		kind: "create",
	},
	transactionQuery: { fields: transaction(ids.transaction), wrapping: "never", kind: "query" },
	refund: { fields: { refundId: ids.refund, refundNumber: "RF-000045" }, wrapping: "always", kind: "create" },
	refundQuery: { fields: refund(ids.refund), wrapping: "always", kind: "query" },
};

type Version = "2.0" | "2.1";
const VERSIONS: readonly Version[] = ["2.0", "2.1"];

/** Signed responses of each endpoint in each version: mostly the client's version, sometimes the other. */
const signedResponses = new Map(
	Object.entries(ENDPOINTS).flatMap(([endpoint, spec]) =>
		VERSIONS.map(
			(version) =>
				[
					`${endpoint} ${version}`,
					messageCases(signedMessages(variantOf(spec.fields), 12, version), spec.wrapping),
				] as const,
		),
	),
);

function responsesFor(endpoint: Endpoint, version: Version) {
	const other = version === "2.0" ? "2.1" : "2.0";
	const of = (v: Version) => signedResponses.get(`${endpoint} ${v}`) as ReturnType<typeof messageCases>;
	return fc.oneof({ weight: 6, arbitrary: of(version) }, { weight: 1, arbitrary: of(other) });
}

/** An unsigned error body the way gateways and proxies write them, with values of every type and depth. */
const deep = fc.constantFrom(10, 1000, 20_000).map((depth) => ({ deep: depth }));
/** Objects that `String()` cannot convert: JSON can name a member toString or valueOf. */
const unconvertible = fc.constantFrom({ toString: "x" }, { toString: 1, valueOf: [] }, { valueOf: {} });
const oddValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), unicodePiece, deep, unconvertible);

function jsonOf(value: unknown): string {
	return JSON.stringify(value, (_key, item) => item) ?? "null";
}

/** JSON text with `{ deep: n }` placeholders replaced by n nested arrays (too deep for JSON.stringify to write). */
function writeWithDepth(value: unknown): string {
	if (
		typeof value === "object" &&
		value !== null &&
		!Array.isArray(value) &&
		Object.keys(value).length === 1 &&
		typeof (value as { deep?: unknown }).deep === "number"
	) {
		const depth = (value as { deep: number }).deep;
		return `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
	}
	if (Array.isArray(value)) return `[${value.map(writeWithDepth).join(",")}]`;
	if (typeof value === "object" && value !== null) {
		return `{${Object.entries(value)
			.map(([key, item]) => `${JSON.stringify(key)}:${writeWithDepth(item)}`)
			.join(",")}}`;
	}
	return jsonOf(value);
}

const errorBody = fc
	.record(
		{
			status: fc.oneof(fc.constantFrom("error", "success", "failed"), oddValue),
			message: oddValue,
			errors: fc.oneof(
				fc.array(fc.record({ field: oddValue, message: oddValue }, { requiredKeys: [] }), { maxLength: 3 }),
				oddValue,
			),
			data: fc.oneof(fc.record({ transactionId: oddValue }, { requiredKeys: [] }), oddValue),
			transactionId: fc.oneof(fc.constant(null), oddValue),
		},
		{ requiredKeys: [] },
	)
	.map(writeWithDepth);

const garbage = fc.oneof(
	fc.constantFrom("", "<html><body>502 Bad Gateway</body></html>", "null", "[]", '"text"', "{", "\ufeff{}", "{}"),
	fc.string({ unit: "binary", maxLength: 64 }),
	anything.map((value) => fc.stringify(value)),
	fc.constantFrom(2000, 70_000).map((size) => `{"message":"${"x".repeat(size)}"}`),
);

/**
 * 421 is left out: fetch itself sends a request that got 421 Misdirected Request once more
 * (the Fetch standard; undici does, creates included), which no client option turns off. A
 * known finding, reported with the suite; here the re-sent request would land in a later case.
 */
const statusFor = (signed: boolean) =>
	fc.oneof(
		{ weight: signed ? 12 : 2, arbitrary: fc.constant(200) },
		{ weight: 4, arbitrary: fc.constantFrom(201, 204, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504) },
		{ weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }).filter((status) => status !== 421) },
	);

const headers = fc.record(
	{
		"content-type": fc.constantFrom(
			"application/json",
			"application/json; charset=utf-8",
			"text/html",
			"application/octet-stream",
			"",
		),
		"retry-after": fc.constantFrom(
			"0",
			"1",
			"120",
			"1e400",
			"9".repeat(400),
			"Wed, 21 Oct 2015 07:28:00 GMT",
			"soon",
			"-1",
		),
		"x-request-id": fc.string({ maxLength: 8 }).map((text) => text.replace(/[^\x20-\x7e]/g, "")),
		// A body that is not in the encoding named: the fetch's decoder fails while the client reads.
		"content-encoding": fc.constantFrom("gzip", "br", "deflate", "identity", "x-unknown"),
		// A 3xx with a Location: the client refuses to follow it (a network error, as redirect: "error" gives).
		location: fc.constantFrom("/v2/checkout", "http://127.0.0.1:9/elsewhere"),
	},
	{ requiredKeys: [] },
);

interface ResponseCase {
	endpoint: Endpoint;
	version: "2.0" | "2.1";
	strict: boolean;
	smallLimit: boolean;
	status: number;
	headers: Record<string, string>;
	body: string;
	origin: Signed | undefined;
}

const responseCases: fc.Arbitrary<ResponseCase> = fc
	.record({
		endpoint: fc.constantFrom<Endpoint>("checkout", "card", "transactionQuery", "refund", "refundQuery"),
		version: fc.constantFrom<"2.0" | "2.1">("2.0", "2.1"),
		strict: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
		smallLimit: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
		kind: fc.oneof(
			{ weight: 8, arbitrary: fc.constant("signed" as const) },
			{ weight: 3, arbitrary: fc.constant("error" as const) },
			{ weight: 1, arbitrary: fc.constant("garbage" as const) },
		),
		headers,
		seed: fc.nat(),
	})
	.chain((c) => {
		const body =
			c.kind === "signed"
				? responsesFor(c.endpoint, c.version).map((signed) => ({
						body: signed.text,
						origin: signed.origin as Signed | undefined,
					}))
				: (c.kind === "error" ? errorBody : garbage).map((text) => ({
						body: text,
						origin: undefined as Signed | undefined,
					}));
		return fc.tuple(body, statusFor(c.kind === "signed")).map(([fuzzed, status]) => ({ ...c, ...fuzzed, status }));
	});

const merchantKey = loadPrivateKey(keys.merchantPrivate);
const clients = new Map<string, GatewayClient>();

function clientFor(c: ResponseCase): GatewayClient {
	const id = `${c.version} ${c.strict} ${c.smallLimit} ${ENDPOINTS[c.endpoint].kind}`;
	let client = clients.get(id);
	if (!client) {
		client = new GatewayClient({
			baseUrl,
			allowLoopbackHttp: true,
			merchantId: "M-1001",
			privateKey: merchantKey,
			gatewayPublicKey,
			signVersion: c.version,
			requireSignedResponses: c.strict,
			maxResponseBytes: c.smallLimit ? 256 : undefined,
			// Creates are never retried, whatever this says; queries are not retried here
			// (a Retry-After would cost real time).
			maxRetries: ENDPOINTS[c.endpoint].kind === "create" ? 2 : 0,
			retryBaseDelayMs: 0,
			// Node 22's fetch (undici 6) can hang on a large body labelled gzip that is not gzipped; the client
			// then ends the call with TimeoutError at timeoutMs, which must come well before the test's own limit.
			timeoutMs: 3_000,
			logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
			logLevel: "debug",
			hooks: { onError: () => {}, onResponse: () => {} },
		});
		clients.set(id, client);
	}
	return client;
}

function call(client: GatewayClient, endpoint: Endpoint): Promise<unknown> {
	switch (endpoint) {
		case "checkout":
			return client.checkout.create(checkoutParams());
		case "card":
			return client.card.charge(cardParams());
		case "transactionQuery":
			return client.transactions.retrieve(ids.transaction);
		case "refund":
			return client.refunds.create({ transactionId: ids.transaction, amount: 5, reason: "size" });
		case "refundQuery":
			return client.refunds.retrieve(ids.refund);
	}
}

/** The part of a result that comes from the response's signed fields. */
function signedPart(endpoint: Endpoint, result: Record<string, unknown>): Record<string, unknown> {
	switch (endpoint) {
		case "checkout":
			return { transactionId: result.transactionId, paymentLink: result.paymentLink };
		case "card":
			return result.redirectUrl === undefined
				? { transactionId: result.transactionId }
				: { transactionId: result.transactionId, url: result.redirectUrl };
		case "refund":
			return { refundId: result.refundId, refundNumber: result.refundNumber };
		default:
			return result;
	}
}

let current: ResponseCase | undefined;
let attempts = 0;
const NULL_BODY = new Set([204, 205, 304]);

const server: Server = createServer((request, response) => {
	request.resume();
	request.on("end", () => {
		attempts++;
		const fuzzed = current as ResponseCase;
		response.writeHead(fuzzed.status, fuzzed.headers);
		response.end(NULL_BODY.has(fuzzed.status) ? undefined : fuzzed.body);
	});
});
beforeAll(async () => {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("fuzz: gateway responses", () => {
	fuzzTarget(
		"client: fuzzed gateway responses to every endpoint",
		() =>
			fc.asyncProperty(responseCases, async (c) => {
				current = c;
				attempts = 0;
				const outcome = await typedOutcomeAsync(() => call(clientFor(c), c.endpoint), ALLOWED);
				if (attempts !== 1) violation(`the gateway was called ${attempts} times`);
				if (outcome.ok) {
					const verifiedOnly = ENDPOINTS[c.endpoint].kind === "query" || c.strict;
					if (verifiedOnly && !c.origin) violation("returned a result from a response that was never signed");
					if (verifiedOnly && c.origin)
						expectCoveredBySigned(
							signedPart(c.endpoint, outcome.value as Record<string, unknown>),
							c.version,
							c.origin,
						);
				}
				expectNoPollution();
			}),
		{ shortRuns: 200 },
	);
});
