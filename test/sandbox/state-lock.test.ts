import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import { claimPath, type LockStep, takeLock } from "../../src/sandbox/persistence/lock.js";
import { createSandbox } from "../../src/testing.js";
import { keys } from "../support/vectors.js";

// The lock of a state directory names a live sandbox holding it, or it is stale and taken over: a pid now
// used by another process, or this very process's pid (a container restarted after kill -9 reuses pids),
// does not make a lock live. However many start at once over a stale lock, exactly one wins.

const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
let root: string;
let count = 0;
const children: ChildProcess[] = [];

beforeAll(() => {
	root = mkdtempSync(join(tmpdir(), "mg-state-lock-"));
});
afterEach(() => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A new state directory (created, empty). */
function fresh(): string {
	const dir = join(root, `dir-${++count}`);
	mkdirSync(dir, { mode: 0o700 });
	return dir;
}

const lockOf = (dir: string) => join(dir, "sandbox.lock");
const readLock = (dir: string) => JSON.parse(readFileSync(lockOf(dir), "utf8")) as Record<string, unknown>;
/** Field 22 of /proc/<pid>/stat: when the process started. */
const startOf = (pid: number) => {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
};
/** A process that lives until the test ends, and is no sandbox. */
function liveNonSandbox(): number {
	const child = spawn("sleep", ["600"], { stdio: "ignore" });
	children.push(child);
	if (child.pid === undefined) throw new Error("sleep did not start");
	return child.pid;
}
const gonePid = () => spawnSync(process.execPath, ["-e", "0"]).pid;

/** The message of the ConfigurationError `attempt` rejects with. */
async function refusal(attempt: Promise<unknown>): Promise<string> {
	const error = await attempt.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(ConfigurationError);
	return (error as Error).message;
}

describe("a lock that names no live sandbox is taken over", () => {
	test("its pid now belongs to another live process (a reused pid)", async () => {
		const dir = fresh();
		const pid = liveNonSandbox();
		// Written by the sandbox that had this pid: another process start than the live one's.
		writeFileSync(lockOf(dir), JSON.stringify({ pid, hostname: hostname(), processStart: "1", nonce: "gone" }));
		const sandbox = await createSandbox({ gatewayKeys, stateDir: dir });
		expect(readLock(dir)).toMatchObject({ pid: process.pid, processStart: startOf(process.pid) });
		await sandbox.close();
		expect(existsSync(lockOf(dir))).toBe(false);
	});

	test("it names the starting process's own pid (a container restarted after kill -9)", async () => {
		for (const earlier of [
			{ pid: process.pid, hostname: hostname(), processStart: "1", nonce: "earlier" },
			// The same start too (this process), but a lock this process does not hold.
			{ pid: process.pid, hostname: hostname(), processStart: startOf(process.pid), nonce: "not-held" },
			{ pid: process.pid, hostname: hostname() },
		]) {
			const dir = fresh();
			writeFileSync(lockOf(dir), JSON.stringify(earlier));
			const sandbox = await createSandbox({ gatewayKeys, stateDir: dir });
			expect(readLock(dir).nonce).not.toBe(earlier.nonce);
			await sandbox.close();
		}
	});

	test("but a live process whose start matches the lock is the sandbox: refused, naming its pid", async () => {
		const dir = fresh();
		const pid = liveNonSandbox();
		const held = JSON.stringify({ pid, hostname: hostname(), processStart: startOf(pid), nonce: "live" });
		writeFileSync(lockOf(dir), held);
		const message = await refusal(createSandbox({ gatewayKeys, stateDir: dir }));
		expect(message).toContain(`${dir} is in use by the sandbox with pid ${pid}`);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(held);
	});

	test("a lock held by a sandbox of this process stays held", async () => {
		const dir = fresh();
		const first = await createSandbox({ gatewayKeys, stateDir: dir });
		const message = await refusal(createSandbox({ gatewayKeys, stateDir: dir }));
		expect(message).toContain(`${dir} is in use by the sandbox with pid ${process.pid}`);
		await first.close();
	});
});

describe("taking over a stale lock: one starter only (steps played in a chosen order)", () => {
	const staleLock = () => JSON.stringify({ pid: gonePid(), hostname: hostname(), processStart: "1", nonce: "x" });

	/** Steps a starter reaches, each resolved when reached; `hold` keeps it at a step until released. */
	function stepper(hold?: LockStep) {
		const reached = new Map<LockStep, PromiseWithResolvers<void>>();
		const at = (step: LockStep) => {
			if (!reached.has(step)) reached.set(step, Promise.withResolvers<void>());
			return reached.get(step) as PromiseWithResolvers<void>;
		};
		const gate = Promise.withResolvers<void>();
		return {
			reachedStep: (step: LockStep) => at(step).promise,
			release: () => gate.resolve(),
			options: {
				reached: async (step: LockStep) => {
					at(step).resolve();
					if (step === hold) await gate.promise;
				},
			},
		};
	}

	test("two starters that both judged the lock stale: exactly one takes it", async () => {
		for (let round = 0; round < 20; round++) {
			const dir = fresh();
			writeFileSync(lockOf(dir), staleLock());
			const a = stepper("judged-stale");
			const b = stepper("judged-stale");
			const outcomes = [takeLock(dir, a.options), takeLock(dir, b.options)].map((taking) =>
				taking.then(
					(release) => ({ release }),
					(error: unknown) => ({ error: error as Error }),
				),
			);
			await Promise.all([a.reachedStep("judged-stale"), b.reachedStep("judged-stale")]);
			a.release();
			b.release();
			const settled = await Promise.all(outcomes);
			const winners = settled.filter((outcome) => "release" in outcome);
			expect(winners).toHaveLength(1);
			const loser = settled.find((outcome) => "error" in outcome);
			expect(loser && "error" in loser && loser.error.message).toContain(
				`in use by the sandbox with pid ${process.pid}`,
			);
			for (const winner of winners) if ("release" in winner) await winner.release();
			expect(readdirSync(dir)).toEqual([]);
		}
	});

	test("a starter that judged the lock stale before another took it over leaves the new lock alone", async () => {
		const dir = fresh();
		writeFileSync(lockOf(dir), staleLock());
		const late = stepper("judged-stale");
		const second = refusal(takeLock(dir, late.options));
		await late.reachedStep("judged-stale");
		// Meanwhile another starter takes the lock over, start to end.
		const release = await takeLock(dir);
		const taken = readFileSync(lockOf(dir), "utf8");
		late.release();
		expect(await second).toContain(`${dir} is in use by the sandbox with pid ${process.pid}`);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(taken);
		await release();
	});

	test("a starter holding the claim: another one waits, then finds the lock taken", async () => {
		const dir = fresh();
		writeFileSync(lockOf(dir), staleLock());
		const a = stepper("claimed");
		const b = stepper();
		const first = takeLock(dir, a.options);
		await a.reachedStep("claimed");
		const second = refusal(takeLock(dir, b.options));
		// It must wait: settling first (taking the lock too) fails the test at once.
		await Promise.race([b.reachedStep("waiting"), second.then(() => expect.fail("it did not wait for the claim"))]);
		a.release();
		const release = await first;
		expect(await second).toContain(`${dir} is in use by the sandbox with pid ${process.pid}`);
		expect(readLock(dir)).toMatchObject({ pid: process.pid });
		await release();
	});

	test("a claim left by a starter that died is claimed in turn, and the claims are removed", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		const deadStarter = JSON.stringify({ pid: gonePid(), hostname: hostname(), processStart: "1", nonce: "d" });
		writeFileSync(claimPath(lockOf(dir), stale), deadStarter);
		const release = await takeLock(dir);
		expect(readLock(dir)).toMatchObject({ pid: process.pid });
		expect(readdirSync(dir)).toEqual(["sandbox.lock"]);
		await release();
	});
});

describe("a lock the starter cannot judge, or that is no longer its own, is left in place", () => {
	let gone: number;
	beforeAll(() => {
		gone = gonePid();
	});
	test("a lock written on another host: refused, naming the host and its pid, the lock untouched", async () => {
		const dir = fresh();
		const pid = gone;
		const held = JSON.stringify({ pid, hostname: "elsewhere.example", processStart: "1", nonce: "far" });
		writeFileSync(lockOf(dir), held);
		expect(await refusal(takeLock(dir))).toContain(
			`${dir} is in use by a sandbox on host elsewhere.example (pid ${pid}); stop it, or remove ${lockOf(dir)} ` +
				"if it is gone",
		);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(held);
		expect(readdirSync(dir)).toEqual(["sandbox.lock"]);
	});

	const here = () => ({ pid: gone, hostname: hostname() });
	test.each([
		["text that is no JSON", () => "not a lock\n"],
		["no pid", () => JSON.stringify({ hostname: hostname() })],
		["a pid that is no integer", () => JSON.stringify({ ...here(), pid: 12.5 })],
		["a pid of 0", () => JSON.stringify({ ...here(), pid: 0 })],
		["a negative pid", () => JSON.stringify({ ...here(), pid: -1 })],
		["no hostname", () => JSON.stringify({ pid: gone })],
		["a hostname that is no text", () => JSON.stringify({ ...here(), hostname: 7 })],
		["a process start that is no text", () => JSON.stringify({ ...here(), processStart: 1 })],
		["a boot id that is no text", () => JSON.stringify({ ...here(), bootId: 1 })],
		["a nonce that is no text", () => JSON.stringify({ ...here(), nonce: 1 })],
	])("a sandbox.lock with %s is no lock: refused, naming it, and left as it is", async (_, content) => {
		const dir = fresh();
		const text = content();
		writeFileSync(lockOf(dir), text);
		expect(await refusal(takeLock(dir))).toContain(
			`${lockOf(dir)} is not a sandbox lock file: remove it if no sandbox is starting or running`,
		);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(text);
	});

	test("a lock with every field a stale lock may have is taken over", async () => {
		const dir = fresh();
		writeFileSync(
			lockOf(dir),
			JSON.stringify({ ...here(), processStart: "1", bootId: "an earlier boot", nonce: "gone" }),
		);
		const release = await takeLock(dir);
		expect(readLock(dir)).toMatchObject({ pid: process.pid });
		await release();
	});

	test("a live pid whose start is not recorded: refused, saying to remove the lock if it is no sandbox", async () => {
		const dir = fresh();
		const pid = liveNonSandbox();
		writeFileSync(lockOf(dir), JSON.stringify({ pid, hostname: hostname() }));
		expect(await refusal(takeLock(dir))).toContain(
			`${dir} is in use by the sandbox with pid ${pid} (${lockOf(dir)}): stop that sandbox first, or use another ` +
				`state directory; if pid ${pid} is no sandbox, remove ${lockOf(dir)}`,
		);
		// With its start recorded, the pid is known to be the sandbox: no such advice.
		writeFileSync(lockOf(dir), JSON.stringify({ pid, hostname: hostname(), processStart: startOf(pid) }));
		expect(await refusal(takeLock(dir))).toMatch(/: stop that sandbox first, or use another state directory$/);
	});

	test("in another boot, a live pid with the lock's start is not the sandbox: the lock is taken over", async () => {
		const dir = fresh();
		const pid = liveNonSandbox();
		const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
		const lock = { pid, hostname: hostname(), processStart: startOf(pid) };
		writeFileSync(lockOf(dir), JSON.stringify({ ...lock, bootId }));
		expect(await refusal(takeLock(dir))).toContain(`in use by the sandbox with pid ${pid}`);
		writeFileSync(lockOf(dir), JSON.stringify({ ...lock, bootId: "another boot" }));
		const release = await takeLock(dir);
		expect(readLock(dir)).toMatchObject({ pid: process.pid, bootId });
		await release();
	});

	test("releasing a lock that was replaced meanwhile leaves the replacement in place", async () => {
		const dir = fresh();
		const release = await takeLock(dir);
		const replacement = JSON.stringify({ pid: gone, hostname: hostname(), processStart: "1" });
		writeFileSync(lockOf(dir), replacement);
		await release();
		expect(readFileSync(lockOf(dir), "utf8")).toBe(replacement);
	});

	test("once released, a copy of this process's lock left behind is stale: the next start takes it over", async () => {
		const dir = fresh();
		const release = await takeLock(dir);
		const copy = readFileSync(lockOf(dir), "utf8");
		await release();
		expect(existsSync(lockOf(dir))).toBe(false);
		writeFileSync(lockOf(dir), copy);
		const again = await takeLock(dir);
		expect(readFileSync(lockOf(dir), "utf8")).not.toBe(copy);
		await again();
	});
});

describe("claims left on a stale lock", () => {
	let gone: number;
	beforeAll(() => {
		gone = gonePid();
	});
	const staleLock = () => JSON.stringify({ pid: gone, hostname: hostname(), processStart: "1", nonce: "x" });
	/** Writes `count` claims of dead starters, each on the one before (the first on the lock). */
	function deadClaims(dir: string, lock: string, count: number): string[] {
		const names: string[] = [];
		let claimed = lock;
		for (let index = 0; index < count; index++) {
			const claim = JSON.stringify({ pid: gone, hostname: hostname(), processStart: "1", nonce: `d${index}` });
			const name = claimPath(lockOf(dir), claimed);
			writeFileSync(name, claim);
			names.push(name);
			claimed = claim;
		}
		return names;
	}

	test("16 claims of starters that died, one on another: the lock is taken over and every claim removed", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		deadClaims(dir, stale, 16);
		const release = await takeLock(dir);
		expect(readLock(dir)).toMatchObject({ pid: process.pid });
		expect(readdirSync(dir)).toEqual(["sandbox.lock"]);
		await release();
	});

	test("17 such claims: refused, saying to remove the takeover files; the lock and the claims stay", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		const claims = deadClaims(dir, stale, 17);
		const message = await refusal(takeLock(dir));
		expect(message).toContain(
			`${claims[16]}: too many takeovers left unfinished; remove ${lockOf(dir)}.takeover-* and start again`,
		);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(stale);
		expect(readdirSync(dir).sort()).toEqual([lockOf(dir), ...claims].map((path) => path.slice(dir.length + 1)).sort());
	});

	test("a lock turned into something else during a takeover stops it, naming the lock; dead claims stay", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		const [deadClaim] = deadClaims(dir, stale, 1);
		const message = await refusal(
			takeLock(dir, {
				reached: (step) => {
					if (step !== "claimed") return;
					rmSync(lockOf(dir));
					mkdirSync(lockOf(dir));
				},
			}),
		);
		expect(message).toContain(`cannot take over ${lockOf(dir)}: `);
		expect(message).toContain(`${lockOf(dir)} is a directory, where the sandbox keeps a file`);
		// The lock may still be the stale one for all this starter knows: the dead starter's claim stays.
		const left = [lockOf(dir), deadClaim].map((path) => path?.slice(dir.length + 1));
		expect(readdirSync(dir).sort()).toEqual(left.sort());
	});

	test("a starter whose own lock file is removed while it takes over stops, naming the path and why", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		const message = await refusal(
			takeLock(dir, {
				reached: (step) => {
					if (step !== "judged-stale") return;
					for (const name of readdirSync(dir)) if (name.endsWith(".tmp")) rmSync(join(dir, name));
				},
			}),
		);
		expect(message).toContain(`cannot create ${claimPath(lockOf(dir), stale)}: no such file or directory (ENOENT)`);
		expect(readFileSync(lockOf(dir), "utf8")).toBe(stale);
	});

	test("a claim written on another host is waited for, never taken over", async () => {
		const dir = fresh();
		const stale = staleLock();
		writeFileSync(lockOf(dir), stale);
		const claim = claimPath(lockOf(dir), stale);
		const foreign = JSON.stringify({ pid: gone, hostname: "elsewhere.example", processStart: "1" });
		writeFileSync(claim, foreign);
		let waits = 0;
		const release = await takeLock(dir, {
			reached: (step) => {
				if (step !== "waiting") return;
				waits++;
				// The foreign claim is still there, untouched: then its starter gives it up.
				expect(readFileSync(claim, "utf8")).toBe(foreign);
				expect(readFileSync(lockOf(dir), "utf8")).toBe(stale);
				rmSync(claim);
			},
		});
		expect(waits).toBe(1);
		expect(readLock(dir)).toMatchObject({ pid: process.pid });
		await release();
	});
});

describe("starters in processes of their own, all at once over a stale lock", () => {
	const STARTERS = 6;
	const ROUNDS = 25;
	const hook = fileURLToPath(new URL("../cli/ts-resolve-hook.mjs", import.meta.url));
	const script = fileURLToPath(new URL("./support/lock-starter.ts", import.meta.url));

	/** A starter process: send it a command, read its answer. */
	function starter() {
		const child = spawn(process.execPath, ["--import", hook, script], { stdio: ["pipe", "pipe", "inherit"] });
		children.push(child);
		const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
		return {
			pid: child.pid as number,
			async ask(command: string): Promise<{ won?: boolean; message?: string }> {
				child.stdin?.write(`${command}\n`);
				const next = await lines.next();
				if (next.done) throw new Error("the starter ended");
				return JSON.parse(next.value as string) as { won?: boolean; message?: string };
			},
		};
	}

	test(`${STARTERS} starters, ${ROUNDS} rounds: exactly one wins each time, the others name it`, async () => {
		const starters = Array.from({ length: STARTERS }, starter);
		const pid = liveNonSandbox();
		for (let round = 0; round < ROUNDS; round++) {
			const dir = fresh();
			// A sandbox killed with kill -9: its pid gone, or now another process's.
			const stalePid = round % 2 === 0 ? gonePid() : pid;
			writeFileSync(lockOf(dir), JSON.stringify({ pid: stalePid, hostname: hostname(), processStart: "1" }));
			const answers = await Promise.all(starters.map((one) => one.ask(`open ${dir}`)));
			const winners = starters.filter((_, index) => answers[index]?.won);
			expect(
				winners.map((one) => one.pid),
				`round ${round}`,
			).toHaveLength(1);
			const winner = winners[0]?.pid;
			for (const answer of answers.filter((one) => !one.won))
				expect(answer.message).toContain(`${dir} is in use by the sandbox with pid ${winner}`);
			expect(readLock(dir)).toMatchObject({ pid: winner });
			await Promise.all(starters.map((one) => one.ask("close")));
			expect(existsSync(lockOf(dir))).toBe(false);
		}
	}, 120_000);
});

describe("a starter gives up", () => {
	// Slow by nature: a starter waits about ten seconds for another to finish taking a lock over.
	test("after about ten seconds of another starter holding the claim, naming the directory", async () => {
		const dir = fresh();
		writeFileSync(lockOf(dir), JSON.stringify({ pid: gonePid(), hostname: hostname(), processStart: "1" }));
		const held = Promise.withResolvers<void>();
		const claimed = Promise.withResolvers<void>();
		const first = takeLock(dir, {
			reached: async (step) => {
				if (step !== "claimed") return;
				claimed.resolve();
				await held.promise;
			},
		});
		await claimed.promise;
		// Without a step hook, as a sandbox starts.
		const message = await refusal(takeLock(dir));
		expect(message).toContain(`${lockOf(dir)} keeps changing: another sandbox is starting on ${dir}; start again`);
		held.resolve();
		await (await first)();
		expect(readdirSync(dir)).toEqual([]);
	}, 60_000);
});
