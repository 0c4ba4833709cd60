import { randomBytes } from "node:crypto";
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { isProcessAlive } from "../../internal/process-alive.js";
import { fileError, stateProblem } from "./state-problem.js";

/** Who holds a state directory: the lock file's content. */
interface Holder {
	pid: number;
	hostname: string;
}

/**
 * Takes the state directory's lock file for this process: one sandbox per directory. A lock whose
 * process is gone (a sandbox killed without its cleanup) is taken over. The lock is made by linking
 * a complete file into place, so it appears atomically and a reader never sees it half written.
 * @returns a function that releases the lock (when it is still this process's).
 * @throws ConfigurationError naming the directory and the pid that holds it.
 */
export async function takeLock(path: string, dir: string): Promise<() => Promise<void>> {
	const mine = `${JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() })}\n`;
	const temp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}`;
	try {
		await writeFile(temp, mine, { mode: 0o644 });
	} catch (error) {
		throw stateProblem(`cannot write in ${dir}: ${fileError(error)}`);
	}
	try {
		// A few rounds: another sandbox may take over the same stale lock at the same time.
		for (let round = 0; round < 5; round++) {
			try {
				await link(temp, path);
				return () => release(path, mine);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== "EEXIST")
					throw stateProblem(`cannot create ${path}: ${fileError(error)}`);
			}
			const text = await readFile(path, "utf8").catch(() => undefined);
			if (text === undefined) continue;
			const holder = parseHolder(text);
			if (!holder) {
				throw stateProblem(`${path} is not a sandbox lock file: remove it if no sandbox uses ${dir}, then start again`);
			}
			if (holder.hostname !== hostname()) {
				throw stateProblem(
					`${dir} is in use by a sandbox on host ${holder.hostname} (pid ${holder.pid}); ` +
						`stop it, or remove ${path} if it is gone`,
				);
			}
			if (isProcessAlive(holder.pid)) {
				throw stateProblem(
					`${dir} is in use by the sandbox with pid ${holder.pid} (${path}): ` +
						"stop that sandbox first, or use another state directory",
				);
			}
			// Gone: take it over, unless another sandbox just did.
			if ((await readFile(path, "utf8").catch(() => undefined)) === text) await unlink(path).catch(() => {});
		}
		throw stateProblem(`${path} keeps changing: another sandbox is starting on ${dir}`);
	} finally {
		await unlink(temp).catch(() => {});
	}
}

async function release(path: string, mine: string): Promise<void> {
	if ((await readFile(path, "utf8").catch(() => undefined)) === mine) await unlink(path).catch(() => {});
}

function parseHolder(text: string): Holder | undefined {
	try {
		const holder = JSON.parse(text) as Partial<Holder>;
		if (Number.isInteger(holder.pid) && (holder.pid ?? 0) > 0 && typeof holder.hostname === "string")
			return holder as Holder;
	} catch {
		// not JSON
	}
	return undefined;
}
