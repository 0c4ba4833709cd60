import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isProcessAlive } from "../../../internal/process-alive.js";

/**
 * How often the sandbox looks for its starter. Node.js has no event for a parent's exit, so it polls:
 * a system call or two every half second costs nothing measurable, and leaves most of the 3 seconds
 * a CI script may wait for the port to close the server.
 */
export const STARTER_POLL_MS = 500;

/** What the watch looks at; the real process by default, a test's own in tests. */
export interface StarterProbe {
	/** This process's parent pid now. */
	parentPid(): number;
	/** The parent of another process, or undefined when it cannot be told. */
	parentOf(pid: number): number | undefined;
	/** Whether a process exists (whoever owns it). */
	isAlive(pid: number): boolean;
	/** The environment: npm marks the processes it starts. */
	env: NodeJS.ProcessEnv;
}

/** A watch on the process that started the sandbox. */
export interface StarterWatch {
	/** Resolves, with a sentence saying which process ended, once the starter is gone. */
	readonly gone: Promise<string>;
	stop(): void;
}

/**
 * Watches the process that started the sandbox, so that the sandbox ends with it. Run directly, that is
 * the parent: when it ends the sandbox is handed to another parent (init, a subreaper). Run by npm
 * (`npx`, `npm exec`, `npm run`), the parent is a `sh -c` that npm started, so npm is watched too:
 * SIGKILL to npm leaves that shell waiting on the sandbox.
 *
 * npm passes SIGTERM on to that shell, which it ends: the sandbox sees its parent go. SIGINT to npm's pid
 * alone ends nothing: a `sh -c` (dash, the /bin/sh of Debian and Ubuntu) holds SIGINT back until its
 * command ends, and nothing the sandbox could watch tells that apart from the shell merely waking (a
 * SIGSTOP and SIGCONT of the sandbox, a debugger), so the sandbox does not guess. Ctrl+C in a terminal,
 * or SIGINT to the whole process group, reaches the sandbox itself.
 * @returns undefined when there is no starter to outlive (the parent is init, as in a container).
 */
export function watchStarter(
	probe: StarterProbe = { parentPid: () => process.ppid, parentOf, isAlive: isProcessAlive, env: process.env },
	intervalMs = STARTER_POLL_MS,
): StarterWatch | undefined {
	const parent = probe.parentPid();
	if (parent <= 1) return undefined;
	const npm = probe.env.npm_lifecycle_event === undefined ? undefined : probe.parentOf(parent);
	let timer: ReturnType<typeof setInterval> | undefined;
	const gone = new Promise<string>((resolve) => {
		timer = setInterval(() => {
			if (probe.parentPid() !== parent) resolve(`the process that started it (pid ${parent}) ended`);
			else if (npm !== undefined && npm > 1 && !probe.isAlive(npm))
				resolve(`npm (pid ${npm}), which started it, ended`);
			else return;
			clearInterval(timer);
		}, intervalMs);
		// Never what keeps the process alive: the server does that.
		timer.unref?.();
	});
	return { gone, stop: () => clearInterval(timer) };
}

/** Linux: the fourth field of /proc/<pid>/stat; elsewhere, `ps`. */
function parentOf(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// The command name, in parentheses, may hold spaces: the fields after its last ")" are plain.
		const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
		return Number.isInteger(ppid) ? ppid : undefined;
	} catch {
		try {
			const ppid = Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }).trim());
			return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
		} catch {
			return undefined;
		}
	}
}
