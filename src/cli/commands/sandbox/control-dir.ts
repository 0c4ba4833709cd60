import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "../../../errors/configuration-error.js";
import {
	createPrivateFile,
	ensureControlToken,
	KEY_FILES,
	type KeyFolder,
	type RunningSandbox,
	removeRunningSandbox,
	STATE_FILES,
	writeRunningSandbox,
} from "../../../sandbox/cli-entry.js";
import { CliError, fileProblem } from "../../io.js";
import { sandboxRefusal } from "../failure.js";

/**
 * The directory the other commands find a running sandbox by: its control credential, `sandbox.json`
 * (where it listens, for which merchant) and the keys to sign and verify with. The `--state-dir`; without
 * one, a temporary directory, removed when the sandbox stops.
 */
export interface ControlDir {
	/** The directory: pass it as --state-dir to the other commands. */
	dir: string;
	/** Made for this run only, and removed by `close`. */
	temporary: boolean;
	/** The control API's credential. */
	token: string;
	/** Records where the sandbox listens, once it does. */
	announce(running: RunningSandbox): Promise<void>;
	/** Forgets the running sandbox: removes `sandbox.json`, or the whole directory when it is temporary. */
	close(): Promise<void>;
}

/** The keys a temporary directory is given, so that the commands the banner suggests run as printed. */
export interface ThrowawayKeys {
	gateway: { publicKey: string };
	merchant: NonNullable<KeyFolder["merchant"]>;
}

/** Opens the state directory's control files, or makes a temporary directory holding them and the keys. */
export async function openControlDir(stateDir: string | undefined, keys: ThrowawayKeys): Promise<ControlDir> {
	const temporary = stateDir === undefined;
	let dir = stateDir ?? "";
	try {
		if (temporary) {
			dir = await mkdtemp(join(tmpdir(), "merchant-gateway-sandbox-"));
			await writeKeys(dir, keys);
		}
		const token = await ensureControlToken(dir);
		return {
			dir,
			temporary,
			token,
			announce: (running) => writeRunningSandbox(dir, running),
			close: () => (temporary ? rm(dir, { recursive: true, force: true }) : removeRunningSandbox(dir)),
		};
	} catch (error) {
		if (temporary && dir) await rm(dir, { recursive: true, force: true });
		if (error instanceof CliError || error instanceof ConfigurationError) throw sandboxRefusal(error);
		throw new CliError(`cannot prepare ${dir || "a temporary directory"}: ${fileProblem(error)}`);
	}
}

async function writeKeys(dir: string, keys: ThrowawayKeys): Promise<void> {
	const keysDir = join(dir, STATE_FILES.keys);
	await mkdir(keysDir, { mode: 0o700 });
	const files: [string, string, number][] = [[KEY_FILES.gatewayPublic, keys.gateway.publicKey, 0o644]];
	const { privateKey, publicKey } = keys.merchant;
	if (privateKey)
		files.push([KEY_FILES.merchantPrivate, privateKey, 0o600], [KEY_FILES.merchantPublic, publicKey, 0o644]);
	for (const [name, text, mode] of files) {
		const path = join(keysDir, name);
		if (!(await createPrivateFile(path, text, mode))) throw new CliError(`cannot write ${path}: it already exists`);
	}
}
