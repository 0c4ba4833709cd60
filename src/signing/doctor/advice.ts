import { FLAT_CANDIDATES, type SignatureFormName } from "./candidates.js";
import type { ReceivedMessage } from "./read-message.js";

const PARSED_ORDER_NOTE =
	"A 2.0 signature covers nested objects in the order the gateway wrote them and numbers as written: " +
	"JSON.parse moves integer-like keys first, reads 1.0 as 1 and rounds integers beyond 2^53.";

/** What to do when `form` verifies the message. */
export function adviceFor(form: SignatureFormName, received: ReceivedMessage): string {
	if (form === "payload-2.1") {
		return [
			"Nothing to configure for the signed string: this message is signed in 2.1 (the payload text),",
			"which the SDK detects. A GatewayClient accepts responses, IPNs and callbacks in its own version only:",
			'create it with signVersion: "2.1". verifyNotification, createNotificationHandler and decodeCallback',
			"accept both versions unless acceptVersions is set.",
		].join("\n");
	}
	const candidate = FLAT_CANDIDATES.find((c) => c.name === form);
	if (candidate?.exportName === undefined) {
		const lines = ["Nothing to configure: the SDK's default 2.0 form (the gateway's reference form) verifies it."];
		if (received.readFrom === "object") {
			lines.push("It was verified from a parsed object. In production give the SDK the raw body (text or bytes):");
			lines.push(PARSED_ORDER_NOTE);
		}
		return lines.join("\n");
	}
	const name = candidate.exportName;
	return [
		`The message was signed in another form than the gateway's reference form: ${name}, ${candidate.description}.`,
		"Configure the SDK with it wherever 2.0 messages are signed or verified (the client signs requests in it too):",
		`  import { ${name} } from "merchant-gateway";`,
		`  new GatewayClient({ ...options, signedString: ${name} });`,
		`  createNotificationHandler({ ...options, signedString: ${name} });`,
		`  verifyNotification(body, { ...options, signedString: ${name} });`,
		`  decodeCallback(urlOrQuery, { ...options, signedString: ${name} });`,
	].join("\n");
}

/** What makes a valid signature fail, most specific first, given what the doctor saw. */
export interface CauseEvidence {
	received: ReceivedMessage;
	signature: "present" | "missing" | "malformed";
	/** Byte length of each signature that decoded. */
	signatureLengths: number[];
	keyBits: number[];
}

export function likelyCauses(evidence: CauseEvidence): string[] {
	const { received, signature } = evidence;
	if (signature === "missing") {
		if (received.shape === "callback") {
			return [
				"The callback carries no signature. The gateway may send callbacks unsigned: never trust one; " +
					"confirm the outcome with a verified transaction query (gateway.transactions.retrieve) instead.",
			];
		}
		const field = received.shape === "wrapped" ? "data.signature" : "signature";
		const check = "check that the whole body was captured. An unsigned message can never be trusted.";
		return [`The message carries no signature (no ${field} field): ${check}`];
	}
	const causes: string[] = [];
	if (signature === "malformed") {
		causes.push(
			"The signature is not base64: it was changed on the way (URL-decoded twice, quoted, cut). " +
				"A + read as a space, base64url and missing padding are accepted.",
		);
	}
	const modulusBytes = evidence.keyBits.map((bits) => Math.ceil(bits / 8));
	const lengths = evidence.signatureLengths;
	if (lengths.length > 0 && !lengths.some((length) => modulusBytes.includes(length))) {
		causes.push(
			`The signature has ${lengths.join(" or ")} bytes, but the key(s) given ` +
				`(${evidence.keyBits.join(", ")} bits) make ` +
				`${modulusBytes.join(" or ")}-byte signatures: ` +
				"the message was signed with another key, or the signature was cut.",
		);
	}
	causes.push(
		"The message was signed by another key than the one(s) given: the gateway signs this account's messages with " +
			"another key (sandbox and production keys differ, a white-label host may have its own, and your own " +
			"(merchant) public key never verifies the gateway's messages), or someone else signed it. " +
			"During a key rotation give every current key.",
	);
	if (received.readFrom === "object") {
		const parsed = "The message was parsed before this check (a framework's JSON body parser).";
		causes.push(`${parsed} ${PARSED_ORDER_NOTE} Give the raw body.`);
	} else if (received.parts.some((part) => part.signVersion === "2.0")) {
		causes.push(
			"The text is not the body as the gateway sent it: a proxy, a logger or a copy from a log re-serialized it " +
				"(nested key order, number literals or values changed). Capture the raw request body.",
		);
	}
	if (received.parts.some((part) => part.signVersion === "2.1")) {
		causes.push(
			"The payload is not the exact text the gateway signed: a 2.1 signature covers the payload byte for byte, " +
				"so re-encoding, pretty-printing or unescaping it breaks the signature.",
		);
	}
	if (received.shape === "callback") {
		causes.push("The callback URL was altered: its payload must be URL-decoded once, and not rewritten by a redirect.");
	}
	causes.push(
		"The message was tampered with or forged: a field (an amount, a status) was changed after the gateway signed " +
			"it, or someone without the gateway's private key made it up. Never act on it: if nothing on your side " +
			"rewrites bodies, treat it as an attack, and confirm the outcome with a verified transaction query " +
			"(gateway.transactions.retrieve).",
	);
	causes.push(
		"The gateway signs in a form none of those tried reproduces: ask its support for the exact string it signed " +
			"for this message and compare it with the strings above; the first difference is the cause. The signedString " +
			"option accepts a function for any form.",
	);
	return causes;
}
