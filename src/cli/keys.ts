import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { loadPrivateKey, loadPublicKey, type PrivateKey } from "../signing/keys.js";
import { readFileCapped } from "./input.js";
import { CliError, usageError } from "./io.js";

/** What completes a refusal of a key, by the loader's reason. */
const REFUSAL_HINTS: Record<string, string> = {
	passphrase_required: " (give it with --passphrase)",
	wrong_passphrase: " (check --passphrase)",
};

/**
 * Reads the file a key flag names and loads it now, so a bad one is named by its flag and path; errors never
 * show the content.
 */
async function readKeyFile<T>(
	flag: string,
	path: string | undefined,
	load: (text: string) => T,
): Promise<{ text: string; key: T }> {
	if (!path) throw usageError(`${flag} <file> is required`);
	const text = await readFileCapped(path, `the ${flag}`);
	try {
		return { text, key: load(text) };
	} catch (error) {
		const hint = error instanceof InvalidKeyError ? (REFUSAL_HINTS[error.reason] ?? "") : "";
		throw new CliError(`the ${flag} file ${path} is refused: ${(error as Error).message}${hint}`);
	}
}

/** A public key file (PEM or base64 DER), checked now so a bad one is named by its flag and path. */
export async function readPublicKeyFile(flag: string, path: string | undefined): Promise<string> {
	return (await readKeyFile(flag, path, (text) => loadPublicKey(text))).text;
}

/** A private key file, decrypted with the passphrase when it is encrypted. */
export async function readPrivateKeyFile(
	flag: string,
	path: string | undefined,
	passphrase: string | undefined,
): Promise<PrivateKey> {
	return (await readKeyFile(flag, path, (text) => loadPrivateKey(text, { passphrase }))).key;
}

/** node:crypto's view of a key the SDK's loader accepted: PEM, or base64 DER (PKCS#8, else PKCS#1). */
function nodePrivateKey(text: string, passphrase: string | undefined): KeyObject {
	if (text.includes("-----BEGIN")) return createPrivateKey({ key: text, format: "pem", passphrase });
	const der = Buffer.from(text.replace(/\s+/g, ""), "base64");
	try {
		return createPrivateKey({ key: der, format: "der", type: "pkcs8", passphrase });
	} catch {
		return createPrivateKey({ key: der, format: "der", type: "pkcs1" });
	}
}

/**
 * A private key file as a plain PKCS#8 PEM and its SPKI public key, for what takes PEM
 * text (the sandbox's gateway keys). Checked by the SDK's loader first, for its errors.
 */
export async function readKeyPairFile(
	flag: string,
	path: string | undefined,
	passphrase: string | undefined,
): Promise<{ privateKey: string; publicKey: string }> {
	const { text } = await readKeyFile(flag, path, (text) => loadPrivateKey(text, { passphrase }));
	const key = nodePrivateKey(text, passphrase);
	return {
		privateKey: key.export({ format: "pem", type: "pkcs8" }).toString(),
		publicKey: createPublicKey(key).export({ format: "pem", type: "spki" }).toString(),
	};
}
