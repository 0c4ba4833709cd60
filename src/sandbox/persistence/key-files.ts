import { createPrivateKey, createPublicKey } from "node:crypto";
import { join } from "node:path";
import { loadPrivateKey, loadPublicKey, publicKeyText } from "../../signing/keys.js";
import { createPrivateFile, makePrivateFolder, readPrivateFile } from "./private-files.js";
import { KEY_FILES } from "./state-layout.js";
import { type StateField, stateProblem } from "./state-problem.js";

/** A key pair as PEM text. */
export interface KeyPair {
	privateKey: string;
	publicKey: string;
}

/** What to do with a folder of key files. */
export interface KeyFolderOptions {
	/** The option the folder came from, which errors name. */
	field: StateField;
	/** The gateway's key pair from elsewhere (`--key`): saved when the folder has none, else it must be the saved one. */
	gatewayKeys?: KeyPair | undefined;
	/**
	 * The merchant's key: `"generate"` saves a new pair when the folder has no merchant key; a public key
	 * (`--merchant-key`) is saved when it has none, else it must be the saved one; undefined reads what is there.
	 */
	merchant?: "generate" | { publicKey: string } | undefined;
	/** Makes the key pairs the folder lacks. */
	generate: () => Promise<KeyPair>;
}

/** The keys a folder holds once opened. */
export interface KeyFolder {
	gateway: KeyPair;
	/** Undefined when the folder has no merchant key and none was asked for. */
	merchant: { publicKey: string; privateKey?: string | undefined } | undefined;
	/** The files written now, in the order written. */
	written: string[];
}

/**
 * Opens a folder of key files: the keys it holds are reused, the ones it lacks are written (private
 * keys with mode 0600). A key file is never overwritten: one that does not parse, or that contradicts
 * a key given by a flag, stops the start with an error naming the file and what to do. The folder must be
 * this user's and writable by no one else; the `keys/` of a state directory must not be a link.
 */
export async function openKeyFolder(folder: string, options: KeyFolderOptions): Promise<KeyFolder> {
	const files = new KeyFiles(folder, options.field);
	// --keys-dir is the path the user gave; a state directory's keys/ is the sandbox's own name.
	await makePrivateFolder(folder, { field: options.field, followLink: options.field === "keysDir" });
	const gateway = await gatewayPair(files, options);
	const merchant = await merchantKeys(files, options);
	return { gateway, merchant, written: files.written };
}

async function gatewayPair(files: KeyFiles, options: KeyFolderOptions): Promise<KeyPair> {
	const savedPrivate = await files.read(KEY_FILES.gatewayPrivate);
	if (savedPrivate === undefined) {
		const lonePublic = await files.read(KEY_FILES.gatewayPublic);
		if (lonePublic !== undefined) {
			throw files.problem(
				KEY_FILES.gatewayPublic,
				`has no ${KEY_FILES.gatewayPrivate} beside it, so the sandbox cannot sign as that gateway: ` +
					"delete it to have a new gateway key pair saved, or give the gateway's private key with --key",
			);
		}
		const pair = options.gatewayKeys ?? (await options.generate());
		await files.write(KEY_FILES.gatewayPrivate, pair.privateKey, 0o600);
		await files.write(KEY_FILES.gatewayPublic, pair.publicKey, 0o644);
		return pair;
	}
	const pair = files.privateKey(KEY_FILES.gatewayPrivate, savedPrivate);
	if (options.gatewayKeys && !samePublicKey(options.gatewayKeys.publicKey, pair.publicKey)) {
		throw files.problem(
			KEY_FILES.gatewayPrivate,
			"holds another gateway key than the one given (--key): leave --key out to use the saved key, " +
				"or use another directory",
		);
	}
	await files.matchingPublic(KEY_FILES.gatewayPublic, KEY_FILES.gatewayPrivate, pair.publicKey);
	return pair;
}

async function merchantKeys(files: KeyFiles, options: KeyFolderOptions): Promise<KeyFolder["merchant"]> {
	const savedPrivate = await files.read(KEY_FILES.merchantPrivate);
	const pair = savedPrivate === undefined ? undefined : files.privateKey(KEY_FILES.merchantPrivate, savedPrivate);
	let publicKey = await files.read(KEY_FILES.merchantPublic);
	if (publicKey !== undefined) files.publicKey(KEY_FILES.merchantPublic, publicKey);
	if (pair) await files.matchingPublic(KEY_FILES.merchantPublic, KEY_FILES.merchantPrivate, pair.publicKey);
	publicKey = pair?.publicKey ?? publicKey;
	const wanted = options.merchant;
	if (typeof wanted === "object") {
		if (publicKey !== undefined && !samePublicKey(wanted.publicKey, publicKey)) {
			throw files.problem(
				KEY_FILES.merchantPublic,
				"holds another merchant key than the one given (--merchant-key): leave --merchant-key out to use " +
					"the saved key, or use another directory",
			);
		}
		if (publicKey === undefined) await files.write(KEY_FILES.merchantPublic, wanted.publicKey, 0o644);
		return { publicKey: wanted.publicKey, privateKey: pair?.privateKey };
	}
	if (publicKey !== undefined) return { publicKey, privateKey: pair?.privateKey };
	if (wanted !== "generate") return undefined;
	const generated = await options.generate();
	await files.write(KEY_FILES.merchantPrivate, generated.privateKey, 0o600);
	await files.write(KEY_FILES.merchantPublic, generated.publicKey, 0o644);
	return generated;
}

/** The files of one folder: read, checked and written, every problem naming its file. */
class KeyFiles {
	readonly written: string[] = [];
	readonly #folder: string;
	readonly #field: StateField;

	constructor(folder: string, field: StateField) {
		this.#folder = folder;
		this.#field = field;
	}

	problem(name: string, message: string) {
		return stateProblem(`${join(this.#folder, name)} ${message}`, this.#field);
	}

	/** The file's text, or undefined when there is no such file. */
	read(name: string): Promise<string | undefined> {
		return readPrivateFile(join(this.#folder, name), { field: this.#field });
	}

	/** Writes a new file; one that appeared meanwhile (another sandbox starting) is never overwritten. */
	async write(name: string, text: string, mode: number): Promise<void> {
		const path = join(this.#folder, name);
		if (!(await createPrivateFile(path, text, mode, { field: this.#field })))
			throw this.problem(name, "cannot be written: it appeared while the sandbox was writing it: start again");
		this.written.push(path);
	}

	/** A saved private key as PKCS#8 PEM with its public key, checked by the SDK's own loader. */
	privateKey(name: string, text: string): KeyPair {
		try {
			loadPrivateKey(text);
			const key = createPrivateKey(text);
			return {
				privateKey: key.export({ format: "pem", type: "pkcs8" }).toString(),
				publicKey: createPublicKey(key).export({ format: "pem", type: "spki" }).toString(),
			};
		} catch (error) {
			throw this.unreadable(name, error);
		}
	}

	publicKey(name: string, text: string): void {
		try {
			loadPublicKey(text);
		} catch (error) {
			throw this.unreadable(name, error);
		}
	}

	/** The public key file of a saved private key: written when missing, else it must belong to it. */
	async matchingPublic(name: string, privateName: string, derived: string): Promise<void> {
		const saved = await this.read(name);
		if (saved === undefined) return this.write(name, derived, 0o644);
		this.publicKey(name, saved);
		if (!samePublicKey(saved, derived)) {
			throw this.problem(
				name,
				`is not the public key of ${privateName} beside it: delete ${name} to have it written again ` +
					`from ${privateName}, or put back the matching pair`,
			);
		}
	}

	unreadable(name: string, error: unknown) {
		return this.problem(
			name,
			`is not a key the sandbox can use (${(error as Error).message}): put back the key that was there, ` +
				"or move the directory away to start afresh",
		);
	}
}

/** Whether two public keys (PEM, base64 DER or certificates, as the SDK reads them) are the same key. */
function samePublicKey(a: string, b: string): boolean {
	return publicKeyText(loadPublicKey(a)) === publicKeyText(loadPublicKey(b));
}
