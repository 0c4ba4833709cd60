import { GatewayError } from "../../errors/gateway-error.js";
import { MalformedMessageError } from "../../errors/malformed-message-error.js";
import { redactText } from "../../internal/redact.js";
import type { CryptoBackendName } from "../backend.js";
import { type PublicKey, type PublicKeyLike, toPublicKeys } from "../keys.js";
import { type OpenOptions, signatureBytes, verifyingKeyIndex } from "../open.js";
import type { SignVersion } from "../seal.js";
import { adviceFor, likelyCauses } from "./advice.js";
import { FLAT_CANDIDATES, PAYLOAD_DESCRIPTION, type SignatureFormName } from "./candidates.js";
import { type DiagnosableMessage, type MessageShape, readReceived, type SignedPart } from "./read-message.js";

/** Options of `diagnoseSignature`. */
export interface DiagnoseSignatureOptions extends Pick<OpenOptions, "backend"> {
	/** The gateway's public key, or several during a rotation: the report says which one verifies. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
}

/** One signed-string form tried on the message. */
export interface SignatureAttempt {
	/** The form's name. */
	form: SignatureFormName;
	/** The version whose signature this form was checked against. */
	signVersion: SignVersion;
	/** What the form signs, in one sentence. */
	description: string;
	/** Whether the message's signature matches this form's string under one of the keys. */
	verified: boolean;
	/** Which of the keys given verified it (0-based), when one did. */
	keyIndex?: number | undefined;
	/**
	 * The exact string this form signs for the message, with card numbers masked and security
	 * codes and key material removed; undefined when the form could not make one (see `error`).
	 */
	signedString?: string | undefined;
	/** Why the form could not make a string for this message (a lone surrogate, a non-finite number). */
	error?: string | undefined;
	/** An earlier form that makes the very same string for this message. */
	sameStringAs?: SignatureFormName | undefined;
}

/** What `diagnoseSignature` found. Safe to log: no card data, no key material. */
export interface SignatureDiagnosis {
	/** Whether some form verifies the message. */
	verified: boolean;
	/** The first form that verifies, in the order tried (the SDK's default first). */
	form?: SignatureFormName | undefined;
	/** Every form that verifies. */
	verifiedBy: SignatureFormName[];
	/** What the message looked like. */
	message: {
		/** Its kind: flat, wrapped or a callback. */
		shape: MessageShape;
		/** The version the message claims. */
		signVersion: SignVersion;
		/** `text` when the raw text was given, `object` for a parsed message. */
		readFrom: "text" | "object";
		/** Whether it carried a signature the doctor could read. */
		signature: "present" | "missing" | "malformed";
	};
	/** The size of each key given, in their order. */
	keyBits: number[];
	/** Every form tried, in order, with its verdict. */
	attempts: SignatureAttempt[];
	/** When a form verifies: how to configure the SDK for it. */
	advice?: string | undefined;
	/** When none verifies: what to check, most specific first. */
	likelyCauses: string[];
}

type SignatureState = SignatureDiagnosis["message"]["signature"];

/** Why a form could not make a string; the report must still come back, whatever the message held. */
function describe(error: unknown): string {
	if (error instanceof GatewayError) return redactText(error.message);
	// A cycle or absurd depth in a parsed object: name the error only, never its text (it may quote the message).
	return `${error instanceof Error ? error.name : "Error"}: this form cannot make a string for this message.`;
}

interface Trial {
	form: SignatureFormName;
	description: string;
	/** Makes the signed string; throws a typed error when the form cannot. */
	make(): string;
}

/** The 2.1 payload as the verifier takes it: one that is not well-formed Unicode is refused before verifying. */
function wellFormed(payload: string): string {
	if (payload.isWellFormed()) return payload;
	throw new MalformedMessageError("The payload is not well-formed Unicode: refused before verifying.", "payload");
}

function trialsFor(part: SignedPart): Trial[] {
	if (part.signVersion === "2.1") {
		const { payload } = part;
		return [
			{
				form: "payload-2.1",
				description: PAYLOAD_DESCRIPTION,
				make: () => wellFormed(payload),
			},
		];
	}
	const { flat } = part;
	return FLAT_CANDIDATES.map((c) => ({ form: c.name, description: c.description, make: () => c.signedString(flat) }));
}

function attempt(
	trial: Trial,
	part: SignedPart,
	signature: ReturnType<typeof signatureBytes>,
	keys: PublicKey[],
	backend: CryptoBackendName | undefined,
): { attempt: SignatureAttempt; text: string | undefined } {
	const base = { form: trial.form, signVersion: part.signVersion, description: trial.description };
	let text: string;
	try {
		text = trial.make();
	} catch (error) {
		return { attempt: { ...base, verified: false, error: describe(error) }, text: undefined };
	}
	const keyIndex = typeof signature === "string" ? -1 : verifyingKeyIndex(text, signature, keys, backend);
	const verified = keyIndex >= 0;
	const signedString = redactText(text);
	return { attempt: { ...base, verified, keyIndex: verified ? keyIndex : undefined, signedString }, text };
}

/** When several variants verify, they make the same string for this message: say which, and how to tell them apart. */
function withAlternatives(advice: string, verifiedBy: readonly SignatureFormName[]): string {
	const [form, ...others] = verifiedBy;
	if (form === "reference" || form === "payload-2.1" || others.length === 0) return advice;
	const verb = others.length === 1 ? "makes the same string and verifies" : "make the same string and verify";
	const apart = "a message with nested objects, null values or non-ASCII text tells them apart.";
	return `${advice}\nFor this message ${others.join(", ")} ${verb} too: ${apart}`;
}

function overallState(states: SignatureState[]): SignatureState {
	if (states.includes("present")) return "present";
	return states.includes("malformed") ? "malformed" : "missing";
}

/**
 * Finds out how a signed message was signed, for "Invalid signature" errors: tries the
 * gateway's reference form (from the raw text when given), 2.1, and the 2.0 forms seen in
 * public integrations (`nodeSnippetForm`, `flatStringifiedForm`, `retiredFirstDraftForm`),
 * and reports which verify, the exact string each form signs (card data and key material
 * redacted), how to configure the SDK for the form that verifies, or, when none does, the
 * likely causes.
 *
 * `message` is the message as received: an IPN or API response body (text or bytes are best:
 * a parsed object has lost the text's order and number literals), a parsed body, or a
 * callback URL, query string, `URLSearchParams` or query object. Flat and wrapped responses,
 * 2.0 and 2.1 are recognised.
 *
 * @throws MalformedMessageError when the message is none of the forms a gateway sends.
 * @throws InvalidKeyError when a key cannot be loaded.
 */
export function diagnoseSignature(message: DiagnosableMessage, options: DiagnoseSignatureOptions): SignatureDiagnosis {
	const keys = toPublicKeys(options.publicKey);
	const received = readReceived(message);
	const attempts: SignatureAttempt[] = [];
	const states: SignatureState[] = [];
	const signatureLengths: number[] = [];
	const firstWithString = new Map<string, SignatureFormName>();
	for (const part of received.parts) {
		const signature = signatureBytes(part.signature);
		states.push(typeof signature === "string" ? signature : "present");
		if (typeof signature !== "string") signatureLengths.push(signature.length);
		for (const trial of trialsFor(part)) {
			const { attempt: tried, text } = attempt(trial, part, signature, keys, options.backend);
			const sameAs = text === undefined ? undefined : firstWithString.get(text);
			if (text !== undefined && sameAs === undefined) firstWithString.set(text, trial.form);
			attempts.push(sameAs ? { ...tried, sameStringAs: sameAs } : tried);
		}
	}
	const verifiedBy = [...new Set(attempts.filter((a) => a.verified).map((a) => a.form))];
	const form = verifiedBy[0];
	const keyBits = keys.map((key) => key.bits);
	const signature = overallState(states);
	const first = received.parts[0] as SignedPart;
	return {
		verified: form !== undefined,
		form,
		verifiedBy,
		message: { shape: received.shape, signVersion: first.signVersion, readFrom: received.readFrom, signature },
		keyBits,
		attempts,
		advice: form === undefined ? undefined : withAlternatives(adviceFor(form, received), verifiedBy),
		likelyCauses: form === undefined ? likelyCauses({ received, signature, signatureLengths, keyBits }) : [],
	};
}
