import fc from "fast-check";
import { describe } from "vitest";
import {
	createNotificationHandler,
	InvalidNotificationError,
	type Refund,
	SignatureVerificationError,
	type Transaction,
} from "../../src/index.js";
import { expectAllowed, expectCoveredBySigned, expectNoPollution, violation } from "./support/checks.js";
import { anything } from "./support/inputs.js";
import { applyByteMutation, byteMutations } from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";
import { gatewayPublicKey, ipnFields, messageCases, signedMessages } from "./support/signed.js";

/**
 * The IPN route as the gateway meets it: Web `Request`s with mutated signed bodies (text,
 * bytes or a stream cut anywhere), odd methods, Content-Types and Content-Lengths.
 * The handler never throws and never responds 500 (the callbacks here never fail); it
 * reports only InvalidNotificationError or SignatureVerificationError to `onError`; it runs
 * a callback only for a verified event, with content the signature covers, and responds 200
 * exactly then.
 */

const messages = messageCases(signedMessages(ipnFields));

/** Mostly what the gateway sends, sometimes not. */
const mostly = <T>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
	fc.oneof({ weight: 9, arbitrary: usual }, { weight: 1, arbitrary: other });

const head = fc.record({
	method: mostly(fc.constant("POST"), fc.constantFrom("PUT", "GET", "DELETE", "PATCH", "OPTIONS")),
	contentType: mostly(
		fc.constantFrom("application/json", "application/json; charset=utf-8", 'Application/JSON ; Charset="UTF-8"'),
		fc.constantFrom(
			"application/json; charset=latin1",
			"application/json;charset",
			"application/jsonx",
			"text/plain",
			"",
			undefined,
		),
	),
	contentLength: mostly(
		fc.constant(null),
		fc.constantFrom("0", "1", "65536", "65537", "abc", "-1", "1e3", " 12 ", "99999999999999999999"),
	),
	bodyAs: fc.constantFrom("text", "bytes", "stream"),
	chunkAt: fc.array(fc.nat({ max: 1 << 16 }), { maxLength: 3 }),
	bytes: byteMutations,
});

const bodyText = fc.oneof(
	{ weight: 12, arbitrary: messages.map((message) => ({ text: message.text, origin: message.origin })) },
	{ weight: 1, arbitrary: anything.map((value) => ({ text: fc.stringify(value), origin: undefined })) },
);

function streamOf(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
	const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
	const chunks: Uint8Array[] = [];
	let from = 0;
	for (const point of [...points, bytes.length]) {
		chunks.push(bytes.slice(from, point));
		from = point;
	}
	return new ReadableStream({
		pull(controller) {
			const next = chunks.shift();
			if (next === undefined) controller.close();
			else controller.enqueue(next);
		},
	});
}

const STATUSES = new Set([200, 400, 401, 405, 413, 415]);

describe("fuzz: notification handler", () => {
	fuzzTarget("createNotificationHandler: Requests with mutated IPN bodies", () =>
		fc.asyncProperty(bodyText, head, async (body, shape) => {
			const delivered: Array<{ resource: Transaction | Refund; signVersion: "2.0" | "2.1" }> = [];
			const reported: unknown[] = [];
			const handler = createNotificationHandler({
				gatewayPublicKey,
				onTransaction: (transaction, context) =>
					void delivered.push({ resource: transaction, signVersion: context.signVersion }),
				onRefund: (refund, context) => void delivered.push({ resource: refund, signVersion: context.signVersion }),
				onError: (error) => void reported.push(error),
			});
			const bytes = shape.bytes.reduce(applyByteMutation, new Uint8Array(Buffer.from(body.text, "utf8")));
			const withBody = shape.method !== "GET";
			const headers = new Headers();
			if (shape.contentType !== undefined) headers.set("content-type", shape.contentType);
			if (shape.contentLength !== null) headers.set("content-length", shape.contentLength);
			const init: RequestInit & { duplex?: "half" } = { method: shape.method, headers };
			if (withBody) {
				init.body =
					shape.bodyAs === "text"
						? body.text
						: shape.bodyAs === "bytes"
							? (bytes as Uint8Array<ArrayBuffer>)
							: streamOf(bytes, shape.chunkAt);
				if (shape.bodyAs === "stream") init.duplex = "half";
			}
			let response: Response;
			try {
				response = await handler(new Request("http://127.0.0.1/ipn", init));
			} catch (error) {
				violation(
					`the handler threw ${error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error)}`,
				);
			}
			if (!STATUSES.has(response.status)) violation(`responded ${response.status}`);
			const acknowledgement = JSON.parse(await response.text()) as { returnCode?: unknown };
			if (typeof acknowledgement.returnCode !== "string") violation("the response has no returnCode");
			for (const error of reported) expectAllowed(error, [InvalidNotificationError, SignatureVerificationError]);
			if (response.status === 200) {
				if (delivered.length !== 1 || reported.length !== 0)
					violation(`responded 200 after ${delivered.length} callbacks and ${reported.length} errors`);
				if (!body.origin) violation("delivered an event that was never signed");
				const [event] = delivered as [(typeof delivered)[0]];
				expectCoveredBySigned(event.resource, event.signVersion, body.origin);
			} else if (delivered.length !== 0 || reported.length !== 1) {
				violation(`responded ${response.status} after ${delivered.length} callbacks and ${reported.length} errors`);
			}
			expectNoPollution();
		}),
	);
});
