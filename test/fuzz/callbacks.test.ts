import fc from "fast-check";
import { describe } from "vitest";
import {
	decodeCallback,
	InvalidNotificationError,
	MalformedMessageError,
	SignatureVerificationError,
} from "../../src/index.js";
import { openCallbackUrl } from "../../src/signing/index.js";
import type { CallbackInput } from "../../src/testing.js";
import type { Signed } from "./support/checks.js";
import {
	expectCoveredBySigned,
	expectNoPollution,
	expectSignedContent,
	typedOutcome,
	violation,
} from "./support/checks.js";
import { anything } from "./support/inputs.js";
import { member, write } from "./support/json-tree.js";
import {
	applyByteMutation,
	applyTextMutation,
	applyTreeMutation,
	byteMutations,
	style,
	textMutations,
	treeMutation,
	treeMutations,
	unicodePiece,
} from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";
import { callbackFields, documentOf, gatewayPublicKey, signedMessages } from "./support/signed.js";

/**
 * Callback redirects (D5) as frameworks hand them over: a full URL, a query string,
 * `URL`, `URLSearchParams`, or a parsed query object (arrays for repeated names), built
 * from validly signed callbacks whose payload, base64, parameters and signature are mutated.
 * - openCallbackUrl may throw MalformedMessageError or SignatureVerificationError;
 * - decodeCallback may throw InvalidNotificationError or SignatureVerificationError;
 * - what either accepts is exactly (decodeCallback: only) what the signature covers.
 */

type Param = [name: string, value: string];

interface CallbackCase {
	input: unknown;
	origin: Signed | undefined;
}

const base64Form = fc.oneof(
	{ weight: 8, arbitrary: fc.constantFrom("base64", "base64url", "unpadded", "lines") },
	{ weight: 1, arbitrary: fc.constant("junk") },
);

function encodeBase64(bytes: Uint8Array, form: string, junkAt: number): string {
	const standard = Buffer.from(bytes).toString("base64");
	switch (form) {
		case "base64url":
			return Buffer.from(bytes).toString("base64url");
		case "unpadded":
			return standard.replace(/=+$/, "");
		case "lines":
			return standard.replace(/(.{76})/g, "$1\r\n");
		case "junk":
			return standard.slice(0, junkAt % (standard.length + 1)) + "!" + standard.slice(junkAt % (standard.length + 1));
		default:
			return standard;
	}
}

/** How a value is written into the query: percent-encoded, raw (a `+` then reads as a space), or mangled. */
const valueEncoding = fc.oneof(
	{ weight: 8, arbitrary: fc.constantFrom("component", "raw") },
	{ weight: 1, arbitrary: fc.constant("doubled") },
);

/** A URL carries no lone surrogate: the browser would have sent U+FFFD. */
const component = (text: string) => encodeURIComponent(text.toWellFormed());

function encodeValue(value: string, how: string): string {
	if (how === "raw") return value.toWellFormed().replace(/[&#%]/g, component);
	if (how === "doubled") return component(component(value));
	return component(value);
}

type ParamEdit =
	| { op: "duplicateBefore" | "duplicateAfter"; index: number; value: string }
	| { op: "drop"; index: number }
	| { op: "add"; name: string; value: string }
	| { op: "swap"; index: number };

const paramEdit: fc.Arbitrary<ParamEdit> = fc.oneof(
	fc.record({
		op: fc.constantFrom("duplicateBefore" as const, "duplicateAfter" as const),
		index: fc.nat(),
		value: fc.oneof(fc.constantFrom("", "2.1", "2.0", "e30"), unicodePiece),
	}),
	fc.record({ op: fc.constant("drop" as const), index: fc.nat() }),
	fc.record({
		op: fc.constant("add" as const),
		name: fc.constantFrom("__proto__", "constructor", "payload[]", "signVersion", "x", ""),
		value: fc.string({ maxLength: 6 }),
	}),
	fc.record({ op: fc.constant("swap" as const), index: fc.nat() }),
);

function editParams(params: Param[], edit: ParamEdit): Param[] {
	const out = [...params];
	if (out.length === 0 && edit.op !== "add") return out;
	const i = "index" in edit ? edit.index % out.length : 0;
	const chosen = out[i] as Param;
	switch (edit.op) {
		case "duplicateBefore":
			out.splice(i, 0, [chosen[0], edit.value]);
			break;
		case "duplicateAfter":
			out.push([chosen[0], edit.value]);
			break;
		case "drop":
			out.splice(i, 1);
			break;
		case "add":
			out.push([edit.name, edit.value]);
			break;
		case "swap":
			out.splice(i, 1);
			out.unshift(chosen);
			break;
	}
	return out;
}

/** The query as a framework's parser gives it: repeated names as arrays, now and then values no parser makes. */
function queryObject(params: readonly Param[], odd: unknown): Record<string, unknown> {
	const object: Record<string, unknown> = {};
	for (const [name, value] of params) {
		const previous = Object.hasOwn(object, name) ? object[name] : undefined;
		const next = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
		Object.defineProperty(object, name, { value: next, enumerable: true, writable: true, configurable: true });
	}
	if (odd !== undefined) object.signature = odd;
	return object;
}

const inputForm = fc.constantFrom("url", "url", "query", "questionQuery", "URL", "URLSearchParams", "object", "object");

const callbackCases: fc.Arbitrary<CallbackCase> = fc.oneof(
	{
		weight: 12,
		arbitrary: fc
			.record({
				message: signedMessages(callbackFields),
				tree: treeMutations,
				inner: fc.oneof(
					{ weight: 5, arbitrary: fc.constant([]) },
					{ weight: 1, arbitrary: fc.array(treeMutation, { minLength: 1, maxLength: 2 }) },
				),
				style,
				text: textMutations,
				bytes: byteMutations,
				base64: base64Form,
				junkAt: fc.nat(),
				encoding: valueEncoding,
				signVersion20: fc.oneof(
					{ weight: 6, arbitrary: fc.constant(undefined) },
					{ weight: 1, arbitrary: fc.constantFrom("2.0", "2.1", "2.10", " 2.0", "") },
				),
				edits: fc.oneof(
					{ weight: 6, arbitrary: fc.constant([]) },
					{ weight: 1, arbitrary: fc.array(paramEdit, { minLength: 1, maxLength: 2 }) },
				),
				form: inputForm,
				fragment: fc.constantFrom("", "", "#done", "#?payload=e30"),
				odd: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anything }),
			})
			.map((c): CallbackCase => {
				const root = { node: structuredClone(c.message.document) };
				const params: Param[] = [];
				let payloadText: string;
				if (c.message.origin.version === "2.1") {
					// The envelope's parts become parameters; mutations hit the payload text or the signature.
					const payload = member(root.node, "payload")?.value;
					payloadText = payload?.kind === "string" ? payload.value : "";
					if (c.inner.length > 0) {
						const inner = { node: documentOf(payloadText) };
						for (const mutation of c.inner) applyTreeMutation(inner, mutation);
						payloadText = write(inner.node, c.style);
					}
					for (const mutation of c.tree) if (mutation.op === "signatureForm") applyTreeMutation(root, mutation);
					const signature = member(root.node, "signature")?.value;
					params.push(["signVersion", "2.1"], ["signature", signature?.kind === "string" ? signature.value : ""]);
				} else {
					for (const mutation of c.tree) applyTreeMutation(root, mutation);
					payloadText = write(root.node, c.style);
					if (c.signVersion20 !== undefined) params.push(["signVersion", c.signVersion20]);
				}
				payloadText = c.text.reduce(applyTextMutation, payloadText);
				const bytes = c.bytes.reduce(applyByteMutation, new Uint8Array(Buffer.from(payloadText, "utf8")));
				params.unshift(["payload", encodeBase64(bytes, c.base64, c.junkAt)]);
				const edited = (c.edits as ParamEdit[]).reduce(editParams, params);
				const query = edited.map(([name, value]) => `${component(name)}=${encodeValue(value, c.encoding)}`).join("&");
				const url = `https://shop.example/pay/callback?step=done&${query}${c.fragment}`;
				const input: Record<string, () => unknown> = {
					url: () => url,
					query: () => query,
					questionQuery: () => `?${query}`,
					URL: () => new URL(url),
					URLSearchParams: () => new URLSearchParams(query),
					object: () => queryObject([...new URLSearchParams(query).entries()], c.odd),
				};
				return { input: (input[c.form] as () => unknown)(), origin: c.message.origin };
			}),
	},
	{
		weight: 1,
		arbitrary: fc
			.oneof(anything, fc.string({ unit: "binary" }))
			.map((input): CallbackCase => ({ input, origin: undefined })),
	},
);

describe("fuzz: callback redirects", () => {
	fuzzTarget("openCallbackUrl and decodeCallback: mutated callback URLs, queries and query objects", () =>
		fc.property(callbackCases, ({ input, origin }) => {
			const options = { publicKey: gatewayPublicKey };
			const opened = typedOutcome(
				() => openCallbackUrl(input as CallbackInput, options),
				[MalformedMessageError, SignatureVerificationError],
			);
			const decoded = typedOutcome(
				() => decodeCallback(input as CallbackInput, { gatewayPublicKey }),
				[InvalidNotificationError, SignatureVerificationError],
			);
			if (opened.ok) {
				if (!origin) violation("accepted a callback that was never signed");
				expectSignedContent(opened.value.fields, opened.value.signVersion, origin);
			}
			if (decoded.ok) {
				if (!opened.ok || !origin) violation("decodeCallback accepted what openCallbackUrl refused");
				expectCoveredBySigned(decoded.value, opened.value.signVersion, origin);
			}
			expectNoPollution();
		}),
	);
});
