import { createPublicKey, verify } from "node:crypto";
import fc from "fast-check";
import { canonicalString, referenceFormOfText } from "../../../src/signing/canonical.js";
import { loadPrivateKey, loadPublicKey } from "../../../src/signing/index.js";
import { sealMessage, signText } from "../../../src/signing/seal.js";
import { awkwardNumber, awkwardString, jsonObject } from "../../signing/arbitraries.js";
import { checkoutCreated, ids, refund, transaction } from "../../support/gateway-messages.js";
import { parseJsonText, TextNumber, TextObject, type TextValue } from "../../support/json-text.js";
import { keys, vector } from "../../support/vectors.js";
import type { Signed } from "./checks.js";
import { fromValue, type Node, write } from "./json-tree.js";
import {
	applyTextMutation,
	applyTreeMutation,
	awkwardLiteral,
	style,
	type TextMutation,
	type TreeMutation,
	textMutations,
	treeMutation,
	treeMutations,
} from "./mutations.js";

/**
 * Validly signed gateway messages (the vectors' gateway key, sealed by `sealMessage`, plus
 * the PHP-made vectors), and mutations of them as the text a verifier receives.
 */

export const gatewayPrivateKey = loadPrivateKey(keys.gatewayPrivate);
export const gatewayPublicKey = loadPublicKey(keys.gatewayPublic);
const publicKeyObject = createPublicKey(keys.gatewayPublic);

export type Version = "2.0" | "2.1";

export interface SignedMessage {
	/** The message as the gateway sends it: flat 2.0 fields with `signature`, or the 2.1 envelope. */
	document: Node;
	origin: Signed;
}

/** What a signature covers, checked against the key itself: the oracle must be right before it judges. */
function checkedOrigin(origin: Signed, signature: string): Signed {
	const text = origin.version === "2.0" ? origin.signedString : origin.payload;
	if (!verify("md5", Buffer.from(text, "utf8"), publicKeyObject, Buffer.from(signature, "base64")))
		throw new Error("fuzz seed: the signature does not cover its origin");
	return origin;
}

/** Seals `fields` with the gateway key, as `sealMessage` makes gateway messages in tests. */
export function seal(fields: Record<string, unknown>, version: Version): SignedMessage {
	if (version === "2.1") {
		const sealed = sealMessage(fields, { privateKey: gatewayPrivateKey, signVersion: "2.1" });
		return {
			document: fromValue(sealed),
			origin: checkedOrigin({ version: "2.1", payload: sealed.payload }, sealed.signature),
		};
	}
	const sealed = sealMessage(fields, { privateKey: gatewayPrivateKey, signVersion: "2.0" });
	return {
		document: fromValue(sealed),
		origin: checkedOrigin({ version: "2.0", signedString: canonicalString(sealed) }, sealed.signature),
	};
}

/** JSON text as a document, keeping its member order and number literals. */
function fromText(value: TextValue): Node {
	if (typeof value === "string") return { kind: "string", value };
	if (typeof value === "boolean" || value === null)
		return { kind: "literal", text: String(value) as "true" | "false" | "null" };
	if (value instanceof TextNumber) return { kind: "number", literal: value.literal };
	if (value instanceof TextObject)
		return {
			kind: "object",
			members: value.keys.map((key, i) => ({ key, value: fromText(value.values[i] as TextValue) })),
		};
	return { kind: "array", items: value.map(fromText) };
}

/** Valid JSON text as a document to mutate. */
export function documentOf(text: string): Node {
	return fromText(parseJsonText(text));
}

/** The PHP-made gateway vectors: orders and literals that JavaScript would not write. */
function vectorSeeds(): SignedMessage[] {
	const seeds: SignedMessage[] = [];
	for (const name of [
		"transaction-ipn-2.0",
		"refund-ipn-2.0",
		"refund-query-response-2.0",
		"transaction-ipn-2.1",
		"refund-create-response-2.1",
	]) {
		const v = vector(name);
		const text = v.message as string;
		const parsed = JSON.parse(text);
		const signature = (parsed.signature ?? parsed.data?.signature) as string;
		const origin: Signed =
			v.payload === undefined
				? { version: "2.0", signedString: v.canonical as string }
				: { version: "2.1", payload: v.payload };
		seeds.push({ document: fromText(parseJsonText(text)), origin: checkedOrigin(origin, signature) });
	}
	return seeds;
}

const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
	awkwardString,
	awkwardNumber,
	fc.boolean(),
	fc.constant(null),
	jsonObject,
	fc.constant(ids.transaction),
);

/** A known message, half the time as is, else with up to three fields changed or added (never a string `payload`). */
export function variantOf(base: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
	const names = Object.keys(base);
	const changes = fc.dictionary(fc.constantFrom(...names, "metadata", "extra", "__proto__", "10", "9"), fieldValue, {
		minKeys: 1,
		maxKeys: 3,
	});
	return fc.oneof(
		fc.constant(base),
		changes.map((changed) => Object.defineProperties({ ...base }, Object.getOwnPropertyDescriptors(changed))),
	);
}

const CALLBACK = { status: "successful", transactionId: ids.transaction, ref: "ORD-1", amount: 10.5, currency: "EUR" };
const anyObject = jsonObject.filter((fields) => typeof fields.payload !== "string");

/** Field sets of IPNs (transaction and refund), and now and then any JSON object. */
export const ipnFields: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
	{ weight: 3, arbitrary: variantOf(transaction()) },
	{ weight: 3, arbitrary: variantOf(refund()) },
	{ weight: 1, arbitrary: anyObject },
);

/** Field sets of callbacks. */
export const callbackFields: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
	{ weight: 5, arbitrary: variantOf(CALLBACK) },
	{ weight: 1, arbitrary: anyObject },
);

/** Field sets of all the gateway's messages: IPNs, callbacks, responses, and any JSON object. */
export const gatewayFields: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
	variantOf(transaction()),
	variantOf(refund()),
	variantOf(CALLBACK),
	variantOf(checkoutCreated()),
	anyObject,
);

const version = fc.constantFrom<Version>("2.0", "2.1");

/** 2.0 cannot sign a lone surrogate (json_encode refuses it); such fields are sealed in 2.1 only. */
function sealable([fields, v]: [Record<string, unknown>, Version]): boolean {
	if (v === "2.1") return true;
	try {
		canonicalString(fields);
		return true;
	} catch {
		return false;
	}
}

/**
 * Signing costs a millisecond, verifying a twentieth of that: most cases mutate one of a
 * fixed pool of signed messages (sealed once from a fixed seed), the rest seal new fields.
 */
export function signedMessages(
	fields: fc.Arbitrary<Record<string, unknown>>,
	poolSize = 48,
	only?: Version,
): fc.Arbitrary<SignedMessage> {
	const sealableFields = fc.tuple(fields, only === undefined ? version : fc.constant(only)).filter(sealable);
	const pool = fc.sample(sealableFields, { numRuns: poolSize, seed: 7 }).map(([f, v]) => seal(f, v));
	if (only === undefined) pool.push(...vectorSeeds());
	const sealed = [
		{ weight: 4, arbitrary: fc.nat({ max: pool.length - 1 }).map((i) => pool[i] as SignedMessage) },
		{ weight: 1, arbitrary: sealableFields.map(([f, v]) => seal(f, v)) },
	];
	if (only === "2.1") return fc.oneof(...sealed);
	return fc.oneof(...sealed, { weight: 1, arbitrary: gatewayTexts(fields) });
}

/**
 * 2.0 texts as the gateway writes and signs them: its PHP signs the reference form of what it
 * decodes, so its messages may hold number literals that no JavaScript number writes
 * (`12345678901234567`, `1.0e+17`, `-0.0`) and nested members in an order JavaScript does not
 * keep. Signed over `referenceForm` of the text itself.
 */
function gatewayTexts(fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<SignedMessage> {
	const literalEdits = fc.array(
		fc.oneof(
			fc.record({ op: fc.constant("number" as const), at: fc.nat({ max: 1000 }), literal: awkwardLiteral }),
			// Nested members in an order JavaScript would not keep (integer-like keys last).
			fc.record({ op: fc.constant("reorder" as const), at: fc.nat({ max: 1000 }), shift: fc.nat({ max: 64 }) }),
		),
		{ minLength: 1, maxLength: 3 },
	);
	return fc
		.tuple(fields, literalEdits)
		.map(([f, edits]): SignedMessage | undefined => {
			const root = { node: fromValue(f) };
			for (const edit of edits) applyTreeMutation(root, edit as TreeMutation);
			let signedString: string;
			try {
				signedString = referenceFormOfText(write(root.node));
			} catch {
				return undefined;
			}
			const signature = signText(signedString, gatewayPrivateKey);
			if (root.node.kind !== "object") return undefined;
			root.node.members = root.node.members.filter((m) => m.key !== "signature");
			root.node.members.push({ key: "signature", value: { kind: "string", value: signature } });
			return { document: root.node, origin: checkedOrigin({ version: "2.0", signedString }, signature) };
		})
		.filter((message): message is SignedMessage => message !== undefined);
}

export interface MessageCase {
	text: string;
	origin: Signed;
}

/** The wrapped form (`status`, `message`, then the signed part) of the gateway's S2S and refund responses. */
function wrapped(document: Node, origin: Signed, status: Node, message: Node): Node {
	const head = [
		{ key: "status", value: status },
		{ key: "message", value: message },
	];
	if (origin.version === "2.0" || document.kind !== "object")
		return { kind: "object", members: [...head, { key: "data", value: document }] };
	return { kind: "object", members: [...head, ...document.members] };
}

const wrapperParts = {
	status: fc.constantFrom<Node>(
		{ kind: "string", value: "success" },
		{ kind: "string", value: "pending" },
		{ kind: "string", value: "redirect" },
		{ kind: "string", value: "error" },
		{ kind: "literal", text: "null" },
	),
	message: fc.constantFrom<Node>(
		{ kind: "string", value: "ok" },
		{ kind: "string", value: "" },
		{ kind: "literal", text: "null" },
		{ kind: "number", literal: "1" },
	),
};

/** Whether messages come wrapped (`status`, `message`, the signed part): IPNs never, S2S and refund responses do. */
export type Wrapping = "never" | "sometimes" | "always";

function wrapperOf(wrapping: Wrapping) {
	const rarely = fc.oneof(
		{ weight: 3, arbitrary: fc.constant(wrapping === "always") },
		{ weight: 1, arbitrary: fc.constant(wrapping !== "never") },
	);
	return fc.record({ wrap: rarely, ...wrapperParts });
}

/** Mutations of a 2.1 payload text: rare, since any change of the text breaks its signature. */
const payloadMutations = fc.oneof(
	{ weight: 5, arbitrary: fc.constant<TreeMutation[]>([]) },
	{ weight: 1, arbitrary: fc.array(treeMutation, { minLength: 1, maxLength: 2 }) },
);

function mutatePayload(document: Node, mutations: readonly TreeMutation[], chosen: Parameters<typeof write>[1]): void {
	if (mutations.length === 0 || document.kind !== "object") return;
	const slot = document.members.find((m) => m.key === "payload");
	if (slot?.value.kind !== "string") return;
	let inner: { node: Node };
	try {
		inner = { node: fromText(parseJsonText(slot.value.value)) };
	} catch {
		return;
	}
	for (const mutation of mutations) applyTreeMutation(inner, mutation);
	slot.value = { kind: "string", value: write(inner.node, chosen) };
}

/** A signed message, maybe wrapped, then mutated as a document and as text. */
export function messageCases(
	messages: fc.Arbitrary<SignedMessage>,
	wrapping: Wrapping = "sometimes",
): fc.Arbitrary<MessageCase> {
	return fc
		.record({
			message: messages,
			wrapper: wrapperOf(wrapping),
			payload: payloadMutations,
			tree: treeMutations,
			style,
			text: textMutations,
			payloadStyle: style,
		})
		.map(({ message, wrapper: w, payload, tree, style: chosen, text, payloadStyle }) => {
			const root = { node: structuredClone(message.document) };
			mutatePayload(root.node, payload, payloadStyle);
			if (w.wrap) root.node = wrapped(root.node, message.origin, w.status, w.message);
			for (const mutation of tree) applyTreeMutation(root, mutation);
			const written = text.reduce(
				(out: string, mutation: TextMutation) => applyTextMutation(out, mutation),
				write(root.node, chosen),
			);
			return { text: written, origin: message.origin };
		});
}
