import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { isPlainObject } from "../signing/canonical.js";
import { openVerified, parseJsonObject } from "../signing/open.js";
import type { SignVersion } from "../signing/seal.js";
import type { SandboxRequest } from "./exchange.js";
import { type ApiReply, badRequest, unauthenticated } from "./replies.js";
import type { MerchantAccount } from "./state.js";

/** A request body before verification: the envelope as sent, and how it came. */
export interface Envelope {
	body: Record<string, unknown>;
	/** Sent as application/x-www-form-urlencoded (a DIRECT_POST browser form). */
	form: boolean;
}

/** A verified request: whose it is, its fields, and the version it was signed in. */
export interface Authenticated {
	merchant: MerchantAccount;
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	form: boolean;
}

const MAX_BODY_BYTES = 1_048_576;

/** Reads a JSON body, or a form body where `allowForm` says so. */
export async function readEnvelope(request: SandboxRequest, allowForm: boolean): Promise<Envelope | ApiReply> {
	const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
	const text = await request.text();
	if (text.length > MAX_BODY_BYTES) return badRequest("The request body is larger than 1 MiB.", 413);
	if (type === "application/json" || (type === "" && text.trimStart().startsWith("{"))) {
		try {
			return { body: parseJsonObject(text, "request body"), form: false };
		} catch (error) {
			return badRequest(error instanceof MalformedMessageError ? error.message : "The request body is not valid JSON.");
		}
	}
	if (type === "application/x-www-form-urlencoded" && allowForm) {
		const body: Record<string, unknown> = {};
		for (const [key, value] of new URLSearchParams(text)) {
			if (!Object.hasOwn(body, key)) Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
		}
		return { body, form: true };
	}
	return badRequest(`Content-Type must be application/json${allowForm ? " or application/x-www-form-urlencoded" : ""}.`, 415);
}

/**
 * The fields the request claims, read without trusting them: only to find whose
 * key must verify it. A 2.1 body carries them in its payload text.
 */
export function claimedFields(envelope: Envelope): Record<string, unknown> | ApiReply {
	const payload = envelope.body.payload;
	if (payload === undefined) return envelope.body;
	if (typeof payload !== "string") return badRequest("payload must be a JSON string.");
	try {
		return parseJsonObject(payload, "payload");
	} catch {
		return badRequest("The payload is not a JSON object.");
	}
}

/** Fields of a DIRECT_POST form that carry JSON or numbers; the form sends them as text. */
const FORM_JSON_FIELDS = new Set(["metadata", "transactionDocuments", "paymentFilter", "paymentSorter", "browserDetails"]);
const FORM_NUMBER_FIELDS = new Set(["amount", "feeBySeller"]);

/** A form's text values turned back into the JSON types the schemas expect (values that do not parse stay text). */
export function typedFormFields(body: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(body)) {
		let typed = value;
		if (typeof value === "string" && FORM_JSON_FIELDS.has(key)) {
			try {
				typed = JSON.parse(value);
			} catch {
				typed = value;
			}
		} else if (typeof value === "string" && FORM_NUMBER_FIELDS.has(key) && /^-?\d+(\.\d+)?$/.test(value.trim())) {
			typed = Number(value);
		}
		Object.defineProperty(out, key, { value: typed, enumerable: true, writable: true, configurable: true });
	}
	return out;
}

/**
 * Verifies the request with the merchant's registered key(s), in whichever
 * version it was signed (requests may use either; answers follow the account).
 * A form post under 2.0 is verified over its typed fields and, failing that,
 * over the text values as posted: both are exactly what some merchant signed.
 */
export function authenticate(envelope: Envelope, merchant: MerchantAccount | undefined): Authenticated | ApiReply {
	if (!merchant) return unauthenticated("Unknown merchant: no account is registered for this merchantId.");
	const candidates = envelope.form && typeof envelope.body.payload !== "string" ? [typedFormFields(envelope.body), envelope.body] : [envelope.body];
	let failure: unknown;
	for (const candidate of candidates) {
		try {
			const opened = openVerified(candidate, { publicKey: merchant.publicKeys });
			let fields = opened.fields;
			if (opened.signVersion === "2.0" && envelope.form) fields = typedFormFields(fields);
			const { signVersion: _version, ...rest } = fields;
			if (!isPlainObject(rest)) return badRequest("The request must be a JSON object.");
			return { merchant, fields: rest, signVersion: opened.signVersion, form: envelope.form };
		} catch (error) {
			failure = error;
		}
	}
	if (failure instanceof SignatureVerificationError) return unauthenticated(`Signature verification failed: ${failure.message}`);
	if (failure instanceof MalformedMessageError) return unauthenticated(`The request is not a signed message: ${failure.message}`);
	throw failure;
}
