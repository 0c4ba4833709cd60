import { MalformedMessageError } from "../../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../../errors/signature-verification-error.js";
import { setMember } from "../../internal/plain-object.js";
import { decodeCheckoutForm } from "../../schemas/requests.js";
import type { SignedStringForm } from "../../signing/canonical.js";
import { openVerified, parseJsonObject } from "../../signing/open.js";
import type { MerchantAccount } from "../books/merchants.js";
import { type ApiResponse, badRequest, invalidSignature, isApiResponse } from "./spec-responses.js";

/** A request body before verification: the envelope as sent, and how it came. */
export interface Envelope {
	body: Record<string, unknown>;
	/** The JSON body as sent: 2.0 is verified in its own order and with its number literals. */
	text?: string | undefined;
	/** Sent as application/x-www-form-urlencoded (a DIRECT_POST browser form). */
	form: boolean;
}

/** A verified request's fields (without `signVersion`). */
export interface Authenticated {
	fields: Record<string, unknown>;
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | null): string {
	return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Sent the way a browser submits a form: its refusal should be a page the buyer can read, not JSON. */
export function isBrowserForm(contentType: string | null): boolean {
	const type = mediaType(contentType);
	return type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
}

/** Reads a JSON body, or a form body where `allowForm` says so. */
export function readEnvelope(text: string, contentType: string | null, allowForm: boolean): Envelope | ApiResponse {
	const type = mediaType(contentType);
	if (type === "application/json" || (type === "" && text.trimStart().startsWith("{"))) {
		try {
			return { body: parseJsonObject(text, "request body"), text, form: false };
		} catch (error) {
			return badRequest(error instanceof MalformedMessageError ? error.message : "The request body is not valid JSON.");
		}
	}
	if (type === "application/x-www-form-urlencoded" && allowForm) {
		const body: Record<string, unknown> = {};
		for (const [key, value] of new URLSearchParams(text)) {
			if (!Object.hasOwn(body, key)) setMember(body, key, value);
		}
		return { body, form: true };
	}
	return badRequest(
		`Content-Type must be application/json${allowForm ? " or application/x-www-form-urlencoded" : ""}.`,
		415,
	);
}

/** An API request's message as sent: its envelope, and the fields it claims (not verified yet). */
export interface ApiMessage {
	envelope: Envelope;
	claimed: Record<string, unknown>;
}

/** Reads an API request's message: its envelope and claimed fields, or the response refusing the body. */
export function readMessage(text: string, contentType: string | null, allowForm: boolean): ApiMessage | ApiResponse {
	const envelope = readEnvelope(text, contentType, allowForm);
	if (isApiResponse(envelope)) return envelope;
	const claimed = claimedFields(envelope);
	return isApiResponse(claimed) ? claimed : { envelope, claimed };
}

/**
 * The fields the request claims, read without trusting them: only to find whose
 * key must verify it. A 2.1 body carries them in its payload text.
 */
export function claimedFields(envelope: Envelope): Record<string, unknown> | ApiResponse {
	const payload = envelope.body.payload;
	if (payload === undefined) return envelope.body;
	if (typeof payload !== "string") return badRequest("payload must be a JSON string.");
	try {
		return parseJsonObject(payload, "payload");
	} catch {
		return badRequest("The payload is not a JSON object.");
	}
}

/**
 * Verifies the request with the merchant's registered key(s), in whichever
 * version it was signed (requests may use either; responses follow the account).
 * A 2.0 DIRECT_POST form is verified over the strings as posted (what the SDK's
 * `checkout.directPost` signs), then decoded back into the JSON message.
 * Whatever cannot be verified gets the gateway's HTTP 500 (D12), naming the merchant.
 */
export function authenticate(
	envelope: Envelope,
	merchant: MerchantAccount,
	signedString: SignedStringForm | undefined,
): Authenticated | ApiResponse {
	try {
		const opened = openVerified(envelope.text ?? envelope.body, { publicKey: merchant.publicKeys, signedString });
		const fields =
			envelope.form && opened.signVersion === "2.0"
				? decodeCheckoutForm(opened.fields as Record<string, string>)
				: opened.fields;
		const { signVersion: _version, ...rest } = fields;
		return { fields: rest };
	} catch (error) {
		const refuse = (why: string) => invalidSignature(merchant.merchantId, `${why}: ${(error as Error).message}`);
		if (error instanceof SignatureVerificationError) return refuse("signature verification failed");
		if (error instanceof MalformedMessageError) return refuse("the request is not a signed message");
		throw error;
	}
}
