import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { CryptoBackendName } from "./backend.js";
import { resolveBackend } from "./backend.js";
import { canonicalString, type SignedStringForm } from "./canonical.js";
import { base64Encode, utf8Encode } from "./encoding.js";
import { type PrivateKeyLike, toPrivateKey } from "./keys.js";

/** The two signing versions of the gateway. 2.0 is what omitting `signVersion` means. */
export type SignVersion = "2.0" | "2.1";

/** Options of `sealMessage`. */
export interface SealOptions {
	/** The signer's private key (the merchant's, for requests). */
	privateKey: PrivateKeyLike;
	/** Signing version of the account. @default "2.0" */
	signVersion?: SignVersion | undefined;
	/** Crypto backend for this call. @default the current default backend */
	backend?: CryptoBackendName | undefined;
	/**
	 * How a 2.0 message becomes the string its signature covers, for a gateway that signs
	 * differently from the reference form. @default canonicalString (the gateway's reference form)
	 */
	signedString?: SignedStringForm | undefined;
}

/** A 2.1 message: every field inside `payload` as JSON text. */
export interface SealedPayload {
	/** Every field, as JSON text: the signed bytes. */
	payload: string;
	/** Always `"2.1"`. */
	signVersion: "2.1";
	/** RSA-MD5 over `payload`, standard base64. */
	signature: string;
}

/** A 2.0 message: the fields, flat, plus `signature`. */
export type SealedFlat<T extends Record<string, unknown>> = Omit<T, "signature"> & {
	/** RSA-MD5 over the fields' signed string, standard base64. */
	signature: string;
};

/** Signs `text` as UTF-8 with RSA-MD5 and returns standard base64. */
export function signText(text: string, privateKey: PrivateKeyLike, backendName?: CryptoBackendName): string {
	const backend = resolveBackend(backendName);
	const key = toPrivateKey(privateKey);
	return base64Encode(backend.sign(key.handleFor(backend.name), utf8Encode(text)));
}

/**
 * Signs a message in the given version.
 * - 2.0: returns the fields plus a `signature` over their canonical string (`canonicalString`).
 * - 2.1: returns `{ payload, signVersion: "2.1", signature }`, where the signature
 *   covers the payload text exactly.
 *
 * A `signature` already in `fields` is replaced; `undefined` fields are dropped.
 *
 * @throws MalformedMessageError when `fields` is not a plain JSON object, holds a
 *   value that cannot be signed (naming its path), or, under 2.0, a string `payload`.
 */
export function sealMessage<T extends Record<string, unknown>>(
	fields: T,
	options: SealOptions & { signVersion?: "2.0" | undefined },
): SealedFlat<T>;
export function sealMessage(
	fields: Record<string, unknown>,
	options: SealOptions & { signVersion: "2.1" },
): SealedPayload;
export function sealMessage(
	fields: Record<string, unknown>,
	options: SealOptions,
): SealedFlat<Record<string, unknown>> | SealedPayload;
export function sealMessage(
	fields: Record<string, unknown>,
	options: SealOptions,
): SealedFlat<Record<string, unknown>> | SealedPayload {
	if (!isPlainObject(fields)) throw new MalformedMessageError("A message to seal must be a plain JSON object.");
	const version = options.signVersion ?? "2.0";
	if (version === "2.1") {
		const { signature: _dropped, signVersion: _version, ...rest } = fields;
		const payload = JSON.stringify(rest);
		return { payload, signVersion: "2.1", signature: signText(payload, options.privateKey, options.backend) };
	}
	if (version !== "2.0") throw new MalformedMessageError(`signVersion must be "2.0" or "2.1".`, "signVersion");
	if (typeof fields.payload === "string") {
		// Receivers read a string `payload` as a 2.1 envelope: such a 2.0 message could never be opened.
		throw new MalformedMessageError(
			"A 2.0 message cannot carry a string field named payload: receivers would read it as a 2.1 envelope.",
			"payload",
		);
	}
	// Spread defines own data properties, so a "__proto__" field stays a field.
	const { signature: _replaced, ...sealed } = fields;
	for (const key of Object.keys(sealed)) if (sealed[key] === undefined) delete sealed[key];
	// Signed from the very object that becomes the body, so both agree on every nested order.
	const form = options.signedString ?? canonicalString;
	sealed.signature = signText(form(sealed), options.privateKey, options.backend);
	return sealed as SealedFlat<Record<string, unknown>>;
}

/** A wrapped message: `status` and `message` around the signed `data` (2.0) or beside the signed payload (2.1). */
export type SealedWrapped = { status: string; message: string | null } & (
	| { data: SealedFlat<Record<string, unknown>> }
	| SealedPayload
);

/**
 * Signs `data` inside a wrapped message, the form of the gateway's card charge, refund and refund query
 * responses: under 2.0 `{ status, message, data }` with the signature inside `data`; under 2.1
 * `{ status, message, payload, signVersion, signature }`. `status` and `message` are not signed.
 * `openVerified` reads both forms back.
 */
export function sealWrapped(
	status: string,
	message: string | null,
	data: Record<string, unknown>,
	options: SealOptions,
): SealedWrapped {
	if (options.signVersion === "2.1")
		return { status, message, ...sealMessage(data, { ...options, signVersion: "2.1" }) };
	return { status, message, data: sealMessage(data, { ...options, signVersion: "2.0" }) };
}
