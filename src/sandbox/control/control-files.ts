import { randomBytes } from "node:crypto";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";

/**
 * The files of a state directory that let a command or a test reach the sandbox running on it: the
 * control credential, readable by its owner only, and where the sandbox listens.
 */
export const CONTROL_FILES = {
	/** The bearer token of the control API (mode 0600), made on the first start and kept. */
	token: "control-token",
	/** Where the running sandbox listens and for which merchant; written once it listens, removed when it stops. */
	running: "sandbox.json",
} as const;

/** What `sandbox.json` says about the sandbox running on a state directory. */
export interface RunningSandbox {
	/** Its loopback origin, where the control API responds, such as `http://127.0.0.1:8080`. */
	url: string;
	/** The origin its links use (its public URL), when it differs from `url`. */
	publicUrl: string | undefined;
	/** The process id of the sandbox. */
	pid: number;
	/** The merchant account it was started with. */
	merchantId: string;
	/** That account's signing version. */
	signVersion: "2.0" | "2.1";
}

const TOKEN_BYTES = 32;
const SUBJECT = "sandbox state directory";

const problem = (field: string, message: string) => new ConfigurationError([{ field, message }], SUBJECT);

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * The control credential of a state directory: read when it exists, else made (random, mode 0600).
 * @throws ConfigurationError when the file is empty, or other users may read it.
 */
export async function ensureControlToken(stateDir: string): Promise<string> {
	const path = join(stateDir, CONTROL_FILES.token);
	try {
		await writeFile(path, `${randomBytes(TOKEN_BYTES).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
	} catch (error) {
		if (errorCode(error) !== "EEXIST") throw problem("stateDir", `cannot write ${path} (${errorCode(error)})`);
	}
	return readControlToken(stateDir);
}

/**
 * The control credential a running sandbox made in its state directory.
 * @throws ConfigurationError naming the file when it is missing, empty, or readable by other users.
 */
export async function readControlToken(stateDir: string): Promise<string> {
	const path = join(stateDir, CONTROL_FILES.token);
	let text: string;
	try {
		const mode = (await stat(path)).mode & 0o777;
		// Windows keeps no such mode bits: its file permissions decide.
		if ((mode & 0o077) !== 0 && process.platform !== "win32") {
			const octal = `0${mode.toString(8)}`;
			const fix = `run chmod 600 ${path}, or delete it and restart the sandbox for a new one`;
			throw problem("stateDir", `${path} may be read by other users (mode ${octal}): ${fix}`);
		}
		text = await readFile(path, "utf8");
	} catch (error) {
		if (error instanceof ConfigurationError) throw error;
		const code = errorCode(error);
		const why =
			code === "ENOENT"
				? "does not exist: is this the --state-dir of a running sandbox?"
				: `cannot be read (${code ?? "unknown error"})`;
		throw problem("stateDir", `${path} ${why}`);
	}
	const token = text.trim();
	if (token === "") throw problem("stateDir", `${path} is empty: delete it and restart the sandbox for a new one`);
	return token;
}

/** Records where the sandbox listens (temporary file, then rename: a reader never sees half of it). */
export async function writeRunningSandbox(stateDir: string, running: RunningSandbox): Promise<void> {
	const path = join(stateDir, CONTROL_FILES.running);
	const temporary = `${path}.${process.pid}.tmp`;
	await writeFile(temporary, `${JSON.stringify(running, null, 2)}\n`, { mode: 0o644 });
	await rename(temporary, path);
}

/** Forgets where the sandbox listened, when it stops. */
export async function removeRunningSandbox(stateDir: string): Promise<void> {
	await rm(join(stateDir, CONTROL_FILES.running), { force: true });
}

/**
 * Where the sandbox running on a state directory listens.
 * @throws ConfigurationError naming the file when no sandbox runs there or the file cannot be read.
 */
export async function readRunningSandbox(stateDir: string): Promise<RunningSandbox> {
	const path = join(stateDir, CONTROL_FILES.running);
	let parsed: unknown;
	try {
		parsed = JSON.parse(await readFile(path, "utf8"));
	} catch (error) {
		const code = errorCode(error);
		const why =
			code === "ENOENT"
				? `no sandbox is running on ${stateDir} (${path} does not exist): start one with --state-dir ${stateDir}`
				: `${path} cannot be read (${code ?? "not JSON"})`;
		throw problem("stateDir", why);
	}
	const running = parsed as Partial<RunningSandbox> | null;
	const valid =
		typeof running?.url === "string" &&
		typeof running.pid === "number" &&
		typeof running.merchantId === "string" &&
		(running.signVersion === "2.0" || running.signVersion === "2.1");
	if (!valid) throw problem("stateDir", `${path} is not what the sandbox writes: restart the sandbox`);
	return running as RunningSandbox;
}
