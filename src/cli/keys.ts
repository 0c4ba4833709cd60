import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { loadPrivateKey, loadPublicKey, type PrivateKey } from "../signing/keys.js";
import { readFileCapped } from "./input.js";
import { CliError, usageError } from "./io.js";

/** Reads the file a key flag names; errors name the flag and the path, never the content. */
async function readKeyText(flag: string, path: string | undefined): Promise<string> {
	if (!path) throw usageError(`${flag} <file> is required`);
	return readFileCapped(path, `the ${flag}`);
}

function refused(flag: string, path: string, error: unknown): CliError {
	if (error instanceof InvalidKeyError) {
		const hint =
			error.reason === "passphrase_required"
				? " (give it with --passphrase)"
				: error.reason === "wrong_passphrase"
					? " (check --passphrase)"
					: "";
		return new CliError(`the ${flag} file ${path} is refused: ${error.message}${hint}`);
	}
	return new CliError(`the ${flag} file ${path} is refused: ${(error as Error).message}`);
}

/** A public key file (PEM or base64 DER), checked now so a bad one is named by its flag and path. */
export async function readPublicKeyFile(flag: string, path: string | undefined): Promise<string> {
	const text = await readKeyText(flag, path);
	try {
		loadPublicKey(text);
	} catch (error) {
		throw refused(flag, path ?? "", error);
	}
	return text;
}

function loadedPrivateKey(flag: string, path: string, text: string, passphrase: string | undefined): PrivateKey {
	try {
		return loadPrivateKey(text, { passphrase });
	} catch (error) {
		throw refused(flag, path, error);
	}
}

/** A private key file, decrypted with the passphrase when it is encrypted. */
export async function readPrivateKeyFile(
	flag: string,
	path: string | undefined,
	passphrase: string | undefined,
): Promise<PrivateKey> {
	const text = await readKeyText(flag, path);
	return loadedPrivateKey(flag, path ?? "", text, passphrase);
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
	const text = await readKeyText(flag, path);
	loadedPrivateKey(flag, path ?? "", text, passphrase);
	const key = nodePrivateKey(text, passphrase);
	return {
		privateKey: key.export({ format: "pem", type: "pkcs8" }).toString(),
		publicKey: createPublicKey(key).export({ format: "pem", type: "spki" }).toString(),
	};
}
