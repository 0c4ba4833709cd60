import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { isPlainObject } from "../../../src/internal/plain-object.js";
import { canonicalString, referenceFormOfText } from "../../../src/signing/canonical.js";
import { sameSignedContent } from "../../support/signed-content.js";
import { violation } from "./checks.js";
import { applyByteMutation, type ByteMutation, byteMutations } from "./mutations.js";
import type { MessageCase } from "./signed.js";

/** How a body reaches a verifier: raw text, raw bytes, what a framework's JSON parser made, or anything at all. */
export type Form = "text" | "bytes" | "object";

export const form = fc.constantFrom<Form>("text", "text", "bytes", "object");

/** Values no parser expects: maps, typed arrays, boxed strings, null prototypes, bigints, sparse arrays. */
export const anything = fc.anything({
	withBigInt: true,
	withBoxedValues: true,
	withDate: true,
	withMap: true,
	withSet: true,
	withNullPrototype: true,
	withObjectString: true,
	withSparseArray: true,
	withTypedArray: true,
	maxDepth: 3,
});

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A body in one form, and the text it was read from (undefined for objects and invalid UTF-8). */
export interface Body {
	input: unknown;
	text: string | undefined;
}

export function body(message: MessageCase, chosen: Form, mutations: readonly ByteMutation[]): Body {
	if (chosen === "bytes") {
		const bytes = mutations.reduce(applyByteMutation, new Uint8Array(Buffer.from(message.text, "utf8")));
		let text: string | undefined;
		try {
			text = strictUtf8.decode(bytes);
		} catch {
			text = undefined;
		}
		return { input: bytes, text };
	}
	if (chosen === "object") {
		try {
			return { input: JSON.parse(message.text), text: undefined };
		} catch {
			return { input: message.text, text: message.text };
		}
	}
	return { input: message.text, text: message.text };
}

export const bodies = (messages: fc.Arbitrary<MessageCase>) =>
	fc.oneof(
		{
			weight: 12,
			arbitrary: fc
				.tuple(messages, form, byteMutations)
				.map(([message, chosen, mutations]) => ({ ...body(message, chosen, mutations), message })),
		},
		{ weight: 1, arbitrary: anything.map((input) => ({ input, text: undefined, message: undefined })) },
	);

/**
 * What the brief's property asks of fields handed out after verifying `received` (the body as
 * read): under 2.0, they sign as the reference form of the text (or object) received, the
 * `data` member of a wrapped response (nested member order aside); under 2.1, they are that body's payload, parsed.
 */
export function expectAsReceived(received: Body, fields: Record<string, unknown>, version: "2.0" | "2.1"): void {
	const { text, input } = received;
	if (version === "2.1") {
		const envelope = text === undefined ? input : JSON.parse(text);
		const payload = (envelope as { payload?: unknown }).payload;
		if (typeof payload !== "string" || !isDeepStrictEqual(fields, JSON.parse(payload)))
			violation("2.1: the fields handed out are not the payload received");
		return;
	}
	let signedForm: string;
	if (text !== undefined) {
		const object = JSON.parse(text) as Record<string, unknown>;
		const wrapped = object.signature === undefined && isPlainObject(object.data);
		signedForm = referenceFormOfText(text, wrapped);
	} else {
		const object = input as Record<string, unknown>;
		const wrapped = object.signature === undefined && isPlainObject(object.data);
		signedForm = canonicalString(wrapped ? (object.data as Record<string, unknown>) : object);
	}
	const handedOut = canonicalString(fields);
	if (!sameSignedContent(handedOut, signedForm))
		violation(`2.0: what it hands out signs as ${handedOut}, the body received as ${signedForm}`);
}
