// Real Redis and PostgreSQL servers for the store tests: started on loopback, on a
// free port, with their data in a new temporary directory, and removed afterwards
// (also when the test process exits early). Debian packages: redis-server, postgresql.
// Without them a developer gets a skip that names the package; under CI a missing
// binary fails the run instead.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface Availability {
	ok: boolean;
	/** Why not, naming the package to install. */
	reason: string;
}

function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/bin", "/usr/sbin"])) {
		const candidate = join(dir, name);
		if (dir && existsSync(candidate)) return candidate;
	}
	return undefined;
}

/** The newest /usr/lib/postgresql/<major>/bin with initdb and postgres (or PG_BIN). */
function postgresBinDir(): string | undefined {
	const fromEnv = process.env.PG_BIN;
	if (fromEnv) return existsSync(join(fromEnv, "postgres")) ? fromEnv : undefined;
	const root = "/usr/lib/postgresql";
	if (!existsSync(root)) return undefined;
	const majors = readdirSync(root)
		.filter((name) => /^\d+$/.test(name))
		.sort((a, b) => Number(b) - Number(a));
	for (const major of majors) {
		const bin = join(root, major, "bin");
		if (existsSync(join(bin, "postgres")) && existsSync(join(bin, "initdb"))) return bin;
	}
	return undefined;
}

function availability(found: boolean, what: string, pkg: string): Availability {
	if (found) return { ok: true, reason: "" };
	const reason = `${what} not found: install the Debian package ${pkg} (apt-get install ${pkg})`;
	// CI provisions the packages (.ci/run): there a missing binary is a failure, never a skip.
	if (process.env.CI) throw new Error(`${reason}. CI never skips the store tests.`);
	console.warn(`SKIPPED: ${reason}`);
	return { ok: false, reason };
}

const hasRedis = () => onPath("redis-server") !== undefined;
export const redisAvailability = (): Availability => availability(hasRedis(), "redis-server", "redis-server");
export const postgresAvailability = (): Availability =>
	availability(postgresBinDir() !== undefined, "PostgreSQL server binaries (initdb, postgres)", "postgresql");

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `probe` until it resolves true, or fails after `timeoutMs` with the process's output. */
async function waitUntil(probe: () => Promise<boolean>, what: string, output: () => string, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await probe().catch(() => false)) return;
		await sleep(50);
	}
	throw new Error(`${what} did not come up within ${timeoutMs} ms:\n${output()}`);
}

interface Managed {
	child: ChildProcess | undefined;
	output: string;
}

function watch(child: ChildProcess, managed: Managed): void {
	managed.child = child;
	const keep = (chunk: Buffer) => {
		managed.output = (managed.output + chunk.toString("utf8")).slice(-4000);
	};
	child.stdout?.on("data", keep);
	child.stderr?.on("data", keep);
}

/** Ends a server process: `signal` first, SIGKILL after `graceMs`. */
async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
	if (!child || child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	child.kill(signal);
	const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
	await exited;
	clearTimeout(timer);
}

/** Kills the process and removes the directory when the test process exits without cleaning up. */
function cleanupOnExit(managed: Managed, dir: string): () => void {
	const hook = () => {
		try {
			managed.child?.kill("SIGKILL");
		} catch {}
		rmSync(dir, { recursive: true, force: true });
	};
	process.once("exit", hook);
	return () => process.off("exit", hook);
}

export interface RealServer {
	readonly port: number;
	/** Stops the server, keeping its data (an outage). */
	stop(): Promise<void>;
	/** Starts it again on the same port with the same data. */
	start(): Promise<void>;
	/** Stops it for good and removes its directory. */
	close(): Promise<void>;
}

export interface RedisServer extends RealServer {
	readonly url: string;
	/** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
	freeze(): void;
	/** Lets a frozen server run again (SIGCONT): it answers what it was sent meanwhile. */
	thaw(): void;
}

function redisPing(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, "127.0.0.1");
		let answer = "";
		socket.setTimeout(1000, () => socket.destroy());
		socket.on("connect", () => socket.write("PING\r\n"));
		socket.on("data", (chunk) => {
			answer += chunk.toString("utf8");
			if (answer.includes("\r\n")) {
				socket.end();
				resolve(answer.startsWith("+PONG"));
			}
		});
		socket.on("error", () => resolve(false));
		socket.on("close", () => resolve(false));
	});
}

/**
 * redis-server on 127.0.0.1 with an append-only file in a temporary directory,
 * so a stop and start keeps the done markers (as a production Redis would).
 */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<RedisServer> {
	const binary = onPath("redis-server");
	if (!binary) throw new Error("redis-server not found: install the Debian package redis-server");
	const dir = mkdtempSync(join(tmpdir(), "mg-redis-"));
	const port = await freePort();
	const managed: Managed = { child: undefined, output: "" };
	const args = [
		"--port",
		String(port),
		"--bind",
		"127.0.0.1",
		"--dir",
		dir,
		"--save",
		"",
		"--appendonly",
		options.appendOnly === false ? "no" : "yes",
		"--daemonize",
		"no",
		"--loglevel",
		"warning",
	];
	const start = async () => {
		watch(spawn(binary, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }), managed);
		await waitUntil(
			() => redisPing(port),
			`redis-server on port ${port}`,
			() => managed.output,
		);
	};
	const forget = cleanupOnExit(managed, dir);
	await start();
	return {
		port,
		url: `redis://127.0.0.1:${port}`,
		freeze: () => void managed.child?.kill("SIGSTOP"),
		thaw: () => void managed.child?.kill("SIGCONT"),
		start,
		stop: () => stopProcess(managed.child, "SIGTERM"),
		close: async () => {
			// A frozen process still dies of SIGKILL.
			await stopProcess(managed.child, "SIGKILL");
			rmSync(dir, { recursive: true, force: true });
			forget();
		},
	};
}

export interface PostgresServer extends RealServer {
	readonly connectionString: string;
}

/** The postgres system user's ids, when this process runs as root (PostgreSQL refuses root). */
function postgresUser(): { uid: number; gid: number } | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
	try {
		return { uid: id("-u"), gid: id("-g") };
	} catch {
		throw new Error(
			"Running as root, but there is no postgres system user (the Debian package postgresql creates it).",
		);
	}
}

async function postgresAccepts(connectionString: string): Promise<boolean> {
	const client = new pg.Client({ connectionString, connectionTimeoutMillis: 1000 });
	client.on("error", () => {});
	try {
		await client.connect();
		await client.query("SELECT 1");
		return true;
	} finally {
		await client.end().catch(() => {});
	}
}

/**
 * A PostgreSQL cluster made by initdb in a temporary directory, served on
 * 127.0.0.1 (and a Unix socket in the same directory). As root, initdb and
 * postgres run as the postgres system user, which owns the directory. Durability
 * settings are off (fsync, synchronous_commit) unless `durable`: tests restart it cleanly
 * only. `settings` are more server settings (`-c name=value`).
 */
export async function startPostgres(
	options: { durable?: boolean; settings?: Record<string, string> } = {},
): Promise<PostgresServer> {
	const bin = postgresBinDir();
	if (!bin) throw new Error("PostgreSQL server binaries not found: install the Debian package postgresql");
	const dir = mkdtempSync(join(tmpdir(), "mg-postgres-"));
	const user = postgresUser();
	if (user) chownSync(dir, user.uid, user.gid);
	const spawnOptions = { cwd: dir, ...(user ?? {}) };
	const data = join(dir, "data");
	const initdbArgs = ["-D", data, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"];
	execFileSync(join(bin, "initdb"), initdbArgs, { ...spawnOptions, stdio: "pipe" });
	const port = await freePort();
	const fast = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
	const extra = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
	const settings = [...(options.durable ? [] : fast), ...extra];
	const args = ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-k", dir, ...settings];
	const managed: Managed = { child: undefined, output: "" };
	const connectionString = `postgresql://postgres@127.0.0.1:${port}/postgres`;
	const start = async () => {
		watch(spawn(join(bin, "postgres"), args, { ...spawnOptions, stdio: ["ignore", "pipe", "pipe"] }), managed);
		await waitUntil(
			() => postgresAccepts(connectionString),
			`postgres on port ${port}`,
			() => managed.output,
		);
	};
	const forget = cleanupOnExit(managed, dir);
	await start();
	return {
		port,
		connectionString,
		start,
		// SIGINT is PostgreSQL's fast shutdown: sessions are ended, data kept.
		stop: () => stopProcess(managed.child, "SIGINT"),
		close: async () => {
			await stopProcess(managed.child, "SIGQUIT", 5000);
			rmSync(dir, { recursive: true, force: true });
			forget();
		},
	};
}
