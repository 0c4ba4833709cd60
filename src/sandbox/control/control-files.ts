import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod/mini";
import { parseJsonObject } from "../../internal/plain-object.js";
import {
	checkPrivateFolder,
	createPrivateFile,
	octal,
	openPrivateFile,
	readPrivateFile,
	replacePrivateFile,
} from "../persistence/private-files.js";
import { STATE_FILES } from "../persistence/state-layout.js";
import { stateProblem } from "../persistence/state-problem.js";

// The files of a state directory that let a command or a test reach the sandbox running on it (their life is
// told in state-layout.ts): the CLI sends the control credential to the URL `sandbox.json` names.

/** What `sandbox.json` says about the sandbox running on a state directory. */
const runningSchema = z.object({
	/** Its loopback origin, where the control API responds, such as `http://127.0.0.1:8080`. */
	url: z.string(),
	/** The origin its links use (its public URL), when it differs from `url`. */
	publicUrl: z.optional(z.string()),
	/** The process id of the sandbox. */
	pid: z.number(),
	/** The merchant account it was started with. */
	merchantId: z.string(),
	/** That account's signing version. */
	signVersion: z.enum(["2.0", "2.1"]),
});
export type RunningSandbox = z.output<typeof runningSchema>;

const TOKEN_BYTES = 32;

/**
 * The control credential of a state directory: read when it exists, else made (random, mode 0600).
 * @throws ConfigurationError when the file is empty, or other users may read it.
 */
export async function ensureControlToken(stateDir: string): Promise<string> {
	const path = join(stateDir, STATE_FILES.controlToken);
	await createPrivateFile(path, `${randomBytes(TOKEN_BYTES).toString("base64url")}\n`, 0o600);
	return readControlToken(stateDir);
}

/**
 * The control credential a running sandbox made in its state directory.
 * @throws ConfigurationError naming the file when it is missing, empty, a link, or readable by other users.
 */
export async function readControlToken(stateDir: string): Promise<string> {
	await checkPrivateFolder(stateDir, { followLink: true });
	const path = join(stateDir, STATE_FILES.controlToken);
	const file = await openPrivateFile(path, constants.O_RDONLY, undefined);
	if (!file) throw stateProblem(`${path} does not exist: is this the --state-dir of a running sandbox?`);
	let text: string;
	try {
		const mode = (await file.stat()).mode & 0o777;
		// Windows keeps no such mode bits: its file permissions decide.
		if ((mode & 0o077) !== 0 && process.platform !== "win32") {
			const fix = `run chmod 600 ${path}, or delete it and restart the sandbox for a new one`;
			throw stateProblem(`${path} may be read by other users (mode ${octal(mode)}): ${fix}`);
		}
		text = await file.readFile("utf8");
	} finally {
		await file.close();
	}
	const token = text.trim();
	if (token === "") throw stateProblem(`${path} is empty: delete it and restart the sandbox for a new one`);
	return token;
}

/** Records where the sandbox listens (a new temporary file, then rename: a reader never sees half of it). */
export async function writeRunningSandbox(stateDir: string, running: RunningSandbox): Promise<void> {
	await replacePrivateFile(join(stateDir, STATE_FILES.running), `${JSON.stringify(running, null, 2)}\n`, 0o644);
}

/** Forgets where the sandbox listened, when it stops. */
export async function removeRunningSandbox(stateDir: string): Promise<void> {
	await rm(join(stateDir, STATE_FILES.running), { force: true });
}

/**
 * Where the sandbox running on a state directory listens.
 * @throws ConfigurationError naming the file when no sandbox runs there or the file cannot be read.
 */
export async function readRunningSandbox(stateDir: string): Promise<RunningSandbox> {
	await checkPrivateFolder(stateDir, { followLink: true });
	const path = join(stateDir, STATE_FILES.running);
	const text = await readPrivateFile(path);
	if (text === undefined) {
		throw stateProblem(
			`no sandbox is running on ${stateDir} (${path} does not exist): start one with --state-dir ${stateDir}`,
		);
	}
	const running = parseJsonObject(text);
	if (!running) throw stateProblem(`${path} cannot be read (not a JSON object)`);
	const checked = z.safeParse(runningSchema, running);
	if (!checked.success) throw stateProblem(`${path} is not what the sandbox writes: restart the sandbox`);
	return checked.data;
}
