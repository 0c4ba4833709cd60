import { describe, expect, it } from "vitest";
import { loadPrivateKey, loadPublicKey, SignatureVerificationError } from "../../src/index.js";
import { base64Decode } from "../../src/signing/encoding.js";
import { openMessage, sealMessage } from "../../src/signing/index.js";
import { keys } from "../support/vectors.js";

/** Each character moved to the code unit 0x100 above it: Node's base64 decoder reads only a unit's low byte. */
const highUnits = (text: string) =>
	text.replace(/[A-Za-z0-9]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0x100));

// Found by the fuzz suite: the loose decoder's fast path took these for base64.
describe("base64Decode refuses characters outside the base64 alphabets", () => {
	it.each([
		["Ł (U+0141) for A", "ŁŁŁŁ"],
		["an astral character whose surrogates end in '-' and 'A'", "\u{5b641}--"],
		["base64 with every letter and digit moved by 0x100", highUnits("QUJD")],
	])("loose: %s", (_, text) => {
		expect(base64Decode(text, true)).toBeUndefined();
	});

	it("a signature written with such look-alike characters does not verify", () => {
		const privateKey = loadPrivateKey(keys.gatewayPrivate);
		const publicKey = loadPublicKey(keys.gatewayPublic);
		for (const signVersion of ["2.0", "2.1"] as const) {
			const sealed = sealMessage({ transactionId: "T-1", status: "successful" }, { privateKey, signVersion });
			const disguised = { ...sealed, signature: highUnits(sealed.signature) };
			const refused = (() => {
				try {
					openMessage(disguised, { publicKey });
				} catch (error) {
					return error;
				}
			})();
			expect(refused).toBeInstanceOf(SignatureVerificationError);
			expect((refused as SignatureVerificationError).reason).toBe("malformed_signature");
		}
	});
});
