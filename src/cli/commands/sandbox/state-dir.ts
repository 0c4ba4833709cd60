import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair } from "../../../signing/generate.js";
import { CliError, fileProblem } from "../../io.js";
import { readKeyPairFile } from "../../keys.js";

/** The key files of a state directory, in its `keys/` folder; the private ones are readable by their owner only. */
export const STATE_KEYS = {
	dir: "keys",
	gatewayPrivate: "gateway-private.pem",
	gatewayPublic: "gateway-public.pem",
	merchantPrivate: "merchant-private.pem",
	merchantPublic: "merchant-public.pem",
} as const;

/** A key pair as PEM text. */
export interface PemKeyPair {
	privateKey: string;
	publicKey: string;
}

/** The keys a state directory holds, and the files this start wrote. */
export interface StateKeys {
	gatewayKeys: PemKeyPair;
	merchantKeys: PemKeyPair;
	written: string[];
}

/**
 * Opens a state directory's keys: made on the first start (the directory readable by its owner only,
 * a fresh gateway and merchant key pair), read back on every later one, so the gateway key and the
 * merchant key a shop holds stay valid across restarts.
 */
export async function openStateKeys(stateDir: string): Promise<StateKeys> {
	const keysDir = join(stateDir, STATE_KEYS.dir);
	try {
		await mkdir(stateDir, { recursive: true, mode: 0o700 });
		await mkdir(keysDir, { recursive: true, mode: 0o700 });
	} catch (error) {
		throw new CliError(`cannot create the --state-dir directory ${keysDir}: ${fileProblem(error)}`);
	}
	const written: string[] = [];
	const gatewayKeys = await keyPair(keysDir, STATE_KEYS.gatewayPrivate, STATE_KEYS.gatewayPublic, written);
	const merchantKeys = await keyPair(keysDir, STATE_KEYS.merchantPrivate, STATE_KEYS.merchantPublic, written);
	return { gatewayKeys, merchantKeys, written };
}

/** One key pair: read when its private key file exists, else generated and written. */
async function keyPair(
	keysDir: string,
	privateName: string,
	publicName: string,
	written: string[],
): Promise<PemKeyPair> {
	const privatePath = join(keysDir, privateName);
	const exists = await readFile(privatePath).then(
		() => true,
		(error: NodeJS.ErrnoException) => {
			if (error.code === "ENOENT") return false;
			throw new CliError(`cannot read ${privatePath}: ${fileProblem(error)}`);
		},
	);
	if (exists) {
		const pair = await readKeyPairFile("--state-dir", privatePath, undefined);
		await writeKey(join(keysDir, publicName), pair.publicKey, 0o644, written);
		return pair;
	}
	const pair = await generateKeyPair();
	await writeKey(privatePath, pair.privateKey, 0o600, written);
	await writeKey(join(keysDir, publicName), pair.publicKey, 0o644, written, true);
	return pair;
}

/** Writes a key file; a public key already there is kept unless `replace` (it is derived from the private one). */
async function writeKey(path: string, text: string, mode: number, written: string[], replace = false): Promise<void> {
	try {
		await writeFile(path, text, { mode, flag: replace ? "w" : "wx" });
		written.push(path);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
		throw new CliError(`cannot write ${path}: ${fileProblem(error)}`);
	}
}
