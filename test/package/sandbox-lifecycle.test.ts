import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { consumerProject, DEPENDENCIES, packedPackage } from "../support/packed.js";

// The sandbox as CI starts it: through real `npx` in a project that installed the packed package.
// Whatever starts it, the sandbox ends when its starter ends: SIGTERM to npx's pid only (what `kill $!`
// does), SIGINT to npx's process group (what Ctrl+C in a terminal does), SIGKILL to npx, SIGKILL to a parent
// that ran the bin; and only then: a SIGSTOP and SIGCONT of the sandbox leave it running. Each test waits for
// conditions (the port accepting or refusing connections, processes gone); the one fixed wait, letting the
// sandbox's starter watch poll after a SIGCONT, can on a slow machine only miss a regression, never fail.

let project: ReturnType<typeof consumerProject>;
const started: ChildProcess[] = [];
const markers: string[] = [];
let runs = 0;

beforeAll(async () => {
	const { tarball } = await packedPackage();
	project = consumerProject(tarball, { packages: DEPENDENCIES });
}, 300_000);
afterAll(() => project?.cleanup());
afterEach(() => {
	// A failed test must not leave a sandbox behind for the next one.
	for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
	for (const pid of markers.splice(0).flatMap(processesMentioning)) process.kill(pid, "SIGKILL");
});

/** No update check against the registry while the tests run npx. */
const env = { ...process.env, npm_config_update_notifier: "false" };
/** The limit of every wait: generous, as the machine may be busy. The 3 seconds the port may take are checked apart. */
const PATIENCE_MS = 20_000;
const PORT_FREED_WITHIN_MS = 3_000;

/** A state directory unique to one run: it names that run's processes in their command lines. */
function uniqueStateDir(): string {
	const dir = join(project.dir, `state-${process.pid}-${++runs}`);
	markers.push(dir);
	return dir;
}

/** A process's state letter from /proc/<pid>/stat: R, S, T (stopped), Z... */
function processState(pid: number): string {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

/** The pids of the live processes whose command line mentions `marker` (zombies count as gone). */
function processesMentioning(marker: string): number[] {
	const pids: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const commandLine = readFileSync(`/proc/${name}/cmdline`, "utf8");
			if (commandLine.includes(marker) && processState(Number(name)) !== "Z") pids.push(Number(name));
		} catch {
			// gone meanwhile
		}
	}
	return pids;
}

function portAccepts(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect({ port, host: "127.0.0.1" });
		socket.once("connect", () => {
			socket.destroy();
			resolve(true);
		});
		socket.once("error", () => resolve(false));
	});
}

/** Polls `condition` every 50 ms; resolves with the milliseconds it took, or rejects after PATIENCE_MS. */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<number> {
	const start = performance.now();
	while (!(await condition())) {
		if (performance.now() - start > PATIENCE_MS) throw new Error(`still waiting after ${PATIENCE_MS} ms: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return performance.now() - start;
}

/** Starts `command args` in the project and resolves once the banner names the port. */
async function startUntilListening(
	command: string,
	args: string[],
	options: { ownGroup?: boolean } = {},
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
	// ownGroup: the child leads a process group of its own, as a terminal's foreground job does.
	const detached = options.ownGroup === true;
	const child = spawn(command, args, { cwd: project.dir, env, stdio: ["ignore", "pipe", "pipe"], detached });
	started.push(child);
	let output = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		output += chunk.toString("utf8");
	});
	child.stderr?.on("data", (chunk: Buffer) => {
		output += chunk.toString("utf8");
	});
	await waitFor(`the banner of ${command} ${args.join(" ")}; output so far: ${output}`, () => {
		if (child.exitCode !== null) throw new Error(`${command} ended: ${output}`);
		return output.includes("Press Ctrl+C");
	});
	const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
	return { child, port, output: () => output };
}

/** After `stop`: the port refuses connections within 3 s, and no process of the run is left. */
async function expectAllGone(port: number, marker: string, stop: () => void): Promise<void> {
	stop();
	const portFreedMs = await waitFor(`port ${port} to refuse connections`, async () => !(await portAccepts(port)));
	await waitFor(`no process left mentioning ${marker}`, () => processesMentioning(marker).length === 0);
	expect(portFreedMs).toBeLessThan(PORT_FREED_WITHIN_MS);
}

describe("npx merchant-gateway sandbox stops with npx", () => {
	const npx = (stateDir: string) => ["merchant-gateway", "sandbox", "-p", "0", "--state-dir", stateDir];

	test.each(["SIGTERM", "SIGKILL"] as const)("%s to npx's pid only", async (signal) => {
		const stateDir = uniqueStateDir();
		const { child, port } = await startUntilListening("npx", npx(stateDir));
		expect(await portAccepts(port)).toBe(true);
		// npm exec, the sh -c it runs the bin through, and node running the sandbox.
		expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(3);
		await expectAllGone(port, stateDir, () => child.kill(signal));
	});

	test("SIGINT to npx's process group (kill -INT -- -<pgid>, as Ctrl+C in a terminal)", async () => {
		const stateDir = uniqueStateDir();
		const { child, port, output } = await startUntilListening("npx", npx(stateDir), { ownGroup: true });
		await expectAllGone(port, stateDir, () => process.kill(-(child.pid ?? 0), "SIGINT"));
		expect(output()).toContain("sandbox stopped");
	});

	test("a SIGSTOP and SIGCONT of the sandbox leave it running", async () => {
		const stateDir = uniqueStateDir();
		const { child, port, output } = await startUntilListening("npx", npx(stateDir));
		const { pid } = JSON.parse(readFileSync(join(stateDir, "sandbox.lock"), "utf8")) as { pid: number };
		process.kill(pid, "SIGSTOP");
		await waitFor("the sandbox to be stopped", () => processState(pid) === "T");
		process.kill(pid, "SIGCONT");
		await waitFor("the sandbox to run again", () => processState(pid) !== "T");
		// The starter watch polls every 500 ms: let it look a few times, then ask the sandbox twice in a row, so
		// that a poll overdue since the SIGCONT has run before the second answer.
		const resumed = performance.now();
		await waitFor("a few polls of the starter watch", () => performance.now() - resumed > 2_000);
		for (let i = 0; i < 2; i++) expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
		expect(output()).not.toContain("stopping");
		expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(3);
		expect(await portAccepts(port)).toBe(true);
		await expectAllGone(port, stateDir, () => child.kill("SIGTERM"));
	});

	test("a parent that ran the installed bin, killed with SIGKILL", async () => {
		const stateDir = uniqueStateDir();
		const bin = join(project.dir, "node_modules", ".bin", "merchant-gateway");
		// The parent passes the sandbox's output through, so the banner reaches this test.
		const parentScript = [
			'const { spawn } = require("node:child_process");',
			`spawn(${JSON.stringify(bin)}, ["sandbox", "-p", "0", "--state-dir", ${JSON.stringify(stateDir)}],`,
			'  { stdio: "inherit" });',
		].join("\n");
		const { child, port } = await startUntilListening(process.execPath, ["-e", parentScript]);
		expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(2);
		await expectAllGone(port, stateDir, () => child.kill("SIGKILL"));
	});

	test("--keep-running outlives its starter; its lock file names the pid to stop it with", async () => {
		const stateDir = uniqueStateDir();
		const { child, port } = await startUntilListening("npx", [
			...["merchant-gateway", "sandbox", "-p", "0", "--state-dir", stateDir, "--keep-running"],
		]);
		child.kill("SIGTERM");
		await waitFor("npx to end", () => child.exitCode !== null || child.signalCode !== null);
		const { pid } = JSON.parse(readFileSync(join(stateDir, "sandbox.lock"), "utf8")) as { pid: number };
		expect(await portAccepts(port)).toBe(true);
		await expectAllGone(port, stateDir, () => process.kill(pid, "SIGTERM"));
	});
});

describe("the CI recipe", () => {
	/** A port free now, for a script that names a fixed one. */
	const freePort = () =>
		new Promise<number>((resolve) => {
			const server = createServer().listen(0, "127.0.0.1", () => {
				const { port } = server.address() as { port: number };
				server.close(() => resolve(port));
			});
		});

	test("start in the background, wait for it, run the tests, kill $!: nothing left, port free", async () => {
		const port = await freePort();
		const stateDir = uniqueStateDir();
		const script = [
			`npx merchant-gateway sandbox --port ${port} --state-dir ${stateDir} > sandbox.log 2>&1 &`,
			"SANDBOX_PID=$!",
			`until curl -sf http://127.0.0.1:${port}/ > /dev/null; do sleep 0.2; done`,
			`curl -sf http://127.0.0.1:${port}/ | grep -q "Merchant Gateway sandbox" && echo "tests passed"`,
			"kill $SANDBOX_PID",
		].join("\n");
		writeFileSync(join(project.dir, "ci.sh"), script);
		const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
			execFile("sh", ["ci.sh"], { cwd: project.dir, env, timeout: PATIENCE_MS }, (error, stdout) =>
				resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
			);
		});
		expect(result).toEqual({ code: 0, stdout: "tests passed\n" });
		await expectAllGone(port, stateDir, () => {});
		expect(readFileSync(join(project.dir, "sandbox.log"), "utf8")).toContain("sandbox stopped");
	});
});
