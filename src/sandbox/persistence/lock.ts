import { createHash, randomBytes } from "node:crypto";
import { link, readFile, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod/mini";
import { parseJsonObject } from "../../internal/plain-object.js";
import { isProcessAlive } from "../../internal/process-alive.js";
import { createPrivateFile, readPrivateFile } from "./private-files.js";
import { STATE_FILES, takeoverPath, temporaryPath } from "./state-layout.js";
import { fileError, stateProblem } from "./state-problem.js";

// The lock of a state directory is a file naming the sandbox that holds it. A lock is that sandbox's while
// its process lives: the pid alone does not say so, since pids are reused (a container restarted after
// kill -9 starts its processes with the same pids), so the lock also records the process's start time and
// the boot it started in (Linux: /proc), and a random nonce that tells this process's own locks from one an
// earlier process with its pid left. Elsewhere a live pid is taken as the sandbox (the message says to
// remove the lock when it is not).
//
// Taking a lock: a complete file (temporary name) is linked to `sandbox.lock`, which fails when one exists.
// Taking over a stale lock: the starter first creates `sandbox.lock.takeover-<digest of the stale lock>` (a
// link to its own file, so it names it), which only one starter can; then it checks that the lock is still
// the stale one and renames its file over it. Nothing else replaces a lock that exists: only the stale
// lock's claimant can, its holder is gone, and a new lock is linked only where there is none. So at most one
// starter wins. A claim left by a starter that died is itself stale: the next starter claims that claim
// (`takeover-<digest of the claim>`) the same way, and the chain stays in place until the lock is replaced.

/** Who holds a state directory: the lock file's content. */
const holderSchema = z.object({
	pid: z.number().check(z.refine((pid) => Number.isInteger(pid) && pid > 0)),
	hostname: z.string(),
	/** The process's start, in clock ticks after boot (/proc/<pid>/stat); Linux only. */
	processStart: z.optional(z.string()),
	/** The boot the process started in (/proc/sys/kernel/random/boot_id); Linux only. */
	bootId: z.optional(z.string()),
	/** Random for each lock: a lock naming this process's pid is its own only if it holds this nonce. */
	nonce: z.optional(z.string()),
});
type Holder = z.output<typeof holderSchema>;

/** Steps of taking a lock, which a test can hold at to play a race in a chosen order. */
export type LockStep = "judged-stale" | "claimed" | "waiting";

/** Options of `takeLock`. */
export interface LockOptions {
	/** Awaited at each step (tests). */
	reached?: ((step: LockStep) => Promise<void> | void) | undefined;
}

/** The nonces of the locks this process holds or is taking. */
const ownLocks = new Set<string>();

/** Rounds of looking again while another starter is taking over: about ten seconds in all. */
const ROUNDS = 220;
/** Claims left by starters that died, one on another, before giving up. */
const MAX_CHAIN = 16;

/**
 * Takes the state directory's lock for this process: one sandbox per directory. A lock that names no
 * live sandbox (its process is gone, or its pid now belongs to another process) is taken over, by one
 * starter only however many start at once.
 * @returns a function that releases the lock (when it is still this process's).
 * @throws ConfigurationError naming the directory and the pid that holds it.
 */
export async function takeLock(dir: string, options: LockOptions = {}): Promise<() => Promise<void>> {
	const path = join(dir, STATE_FILES.lock);
	const nonce = randomBytes(12).toString("hex");
	const mine = `${JSON.stringify(await thisProcess(nonce))}\n`;
	const temp = temporaryPath(path, nonce);
	ownLocks.add(nonce);
	let won = false;
	try {
		if (!(await createPrivateFile(temp, mine, 0o644))) throw stateProblem(`cannot write ${temp}: it exists`);
		for (let round = 0; round < ROUNDS && !won; round++) {
			won = await linked(temp, path);
			if (won) break;
			const current = await readPrivateFile(path);
			if (current === undefined) continue;
			const holder = holderIn(path, current);
			if (holder.hostname !== hostname()) {
				throw stateProblem(
					`${dir} is in use by a sandbox on host ${holder.hostname} (pid ${holder.pid}); stop it, or remove ` +
						`${path} if it is gone`,
				);
			}
			if (await isLive(holder)) throw inUse(holder, path, dir);
			await options.reached?.("judged-stale");
			const outcome = await takeOver(path, temp, current, options);
			won = outcome === "won";
			if (outcome === "wait") {
				await options.reached?.("waiting");
				await sleep(Math.min(2 ** round, 50));
			}
		}
	} finally {
		await unlink(temp).catch(() => {});
		if (!won) ownLocks.delete(nonce);
	}
	if (!won) throw stateProblem(`${path} keeps changing: another sandbox is starting on ${dir}; start again`);
	return () => release(path, mine, nonce);
}

/**
 * Replaces the stale lock `target` with this starter's file, if this starter is the one to claim it.
 * @returns "won"; "lost" when the lock is no longer `target` (look again); "wait" while a live starter holds
 * the claim.
 */
async function takeOver(path: string, temp: string, target: string, options: LockOptions) {
	const passed: string[] = [];
	let claim = claimPath(path, target);
	while (!(await linked(temp, claim))) {
		const text = await readPrivateFile(claim);
		if (text === undefined) return "wait";
		const holder = holderIn(claim, text);
		if (holder.hostname !== hostname() || (await isLive(holder))) return "wait";
		passed.push(claim);
		if (passed.length > MAX_CHAIN)
			throw stateProblem(`${claim}: too many takeovers left unfinished; remove ${path}.takeover-* and start again`);
		claim = claimPath(path, text);
	}
	let outcome: "won" | "lost" | undefined;
	try {
		await options.reached?.("claimed");
		if ((await readPrivateFile(path)) !== target) outcome = "lost";
		else {
			await rename(temp, path);
			outcome = "won";
		}
		return outcome;
	} catch (error) {
		throw stateProblem(`cannot take over ${path}: ${fileError(error)}`);
	} finally {
		await unlink(claim).catch(() => {});
		// The claims of dead starters on `target` mean nothing once the lock is no longer `target` (its holder
		// is gone and cannot write it again); while it may still be, they stay, so no one claims it twice.
		if (outcome !== undefined) for (const name of passed) await unlink(name).catch(() => {});
	}
}

/** Creates `path` as another name of `file`; false when `path` exists. */
async function linked(file: string, path: string): Promise<boolean> {
	try {
		await link(file, path);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw stateProblem(`cannot create ${path}: ${fileError(error)}`);
	}
}

async function release(path: string, mine: string, nonce: string): Promise<void> {
	try {
		// Only this sandbox replaces or removes its own lock while it lives: the check cannot go stale before the unlink.
		if ((await readPrivateFile(path).catch(() => undefined)) === mine) await unlink(path).catch(() => {});
	} finally {
		ownLocks.delete(nonce);
	}
}

/** Whether the process a lock names is the live sandbox that wrote it. */
async function isLive(holder: Holder): Promise<boolean> {
	if (holder.pid === process.pid) return holder.nonce !== undefined && ownLocks.has(holder.nonce);
	if (!isProcessAlive(holder.pid)) return false;
	const [bootId, started] = await Promise.all([readBootId(), processStart(holder.pid)]);
	if (holder.bootId !== undefined && bootId !== undefined && holder.bootId !== bootId) return false;
	// Its pid now names a process that started at another time: not the sandbox. (When /proc does not show
	// the process, as for another user's under hidepid, it is taken as the sandbox.)
	if (holder.processStart !== undefined && started !== undefined && started !== holder.processStart) return false;
	return true;
}

function inUse(holder: Holder, path: string, dir: string) {
	const unverified = holder.processStart === undefined ? `; if pid ${holder.pid} is no sandbox, remove ${path}` : "";
	return stateProblem(
		`${dir} is in use by the sandbox with pid ${holder.pid} (${path}): stop that sandbox first, or use another ` +
			`state directory${unverified}`,
	);
}

/** The holder a lock file (or a claim) names; a file that is no lock is refused. */
function holderIn(path: string, text: string): Holder {
	const holder = z.safeParse(holderSchema, parseJsonObject(text));
	if (!holder.success)
		throw stateProblem(`${path} is not a sandbox lock file: remove it if no sandbox is starting or running`);
	return holder.data;
}

async function thisProcess(nonce: string) {
	const [processStarted, bootId] = await Promise.all([processStart(process.pid), readBootId()]);
	return {
		pid: process.pid,
		hostname: hostname(),
		startedAt: new Date().toISOString(),
		processStart: processStarted,
		bootId,
		nonce,
	};
}

/** The claim on replacing the lock (or the claim) whose content is `text`. */
export function claimPath(lockPath: string, text: string): string {
	return takeoverPath(lockPath, createHash("sha256").update(text).digest("hex").slice(0, 24));
}

/** When a process started (field 22 of /proc/<pid>/stat, after the command name), or undefined without /proc. */
async function processStart(pid: number): Promise<string | undefined> {
	const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
	if (stat === undefined) return undefined;
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

let bootIdRead: Promise<string | undefined> | undefined;
function readBootId(): Promise<string | undefined> {
	bootIdRead ??= readFile("/proc/sys/kernel/random/boot_id", "utf8").then(
		(text) => text.trim() || undefined,
		() => undefined,
	);
	return bootIdRead;
}
