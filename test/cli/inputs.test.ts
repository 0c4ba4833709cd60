import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { doctor } from "../../src/cli/commands/doctor.js";
import { sign } from "../../src/cli/commands/sign.js";
import { decodeCallbackCommand, verifyIpn } from "../../src/cli/commands/verify.js";
import { InputTooLarge, MAX_INPUT_BYTES, readCapped, readFileCapped, readInput } from "../../src/cli/input.js";
import { CliError, type CliIo } from "../../src/cli/io.js";
import { sealMessage } from "../../src/signing/index.js";
import { keyPath, keys } from "../support/vectors.js";
import { type CliProcess, runCliProcess, startCliProcess } from "./spawn.js";

/**
 * What the CLI reads, from real processes: every input is capped (1 MiB) and read chunk by chunk, and a
 * process blocked on a FIFO that nobody writes to still ends on the signals it announces.
 */

const dir = mkdtempSync(join(tmpdir(), "mg-inputs-"));
const gatewayKey = ["--gateway-key", keyPath("gateway-public")];
const LIMIT_SENTENCE = "is read up to 1 MiB";
const TOO_LARGE = /is larger than 1 MiB, the most this command reads/;
const ipn = sealMessage(
	{
		transactionId: "01JD0000000000000000000000",
		ref: "o-1",
		currency: "EUR",
		amount: 10,
		status: "successful",
		statusCode: 6,
	},
	{ privateKey: keys.gatewayPrivate },
);
/** Far above what reading 1 MiB costs, far below reading the input whole (gigabytes). */
const MAX_RSS_KIB = 400 * 1024;

const running: CliProcess[] = [];
const shellChildren: number[] = [];
afterEach(() => {
	for (const cli of running.splice(0)) if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
	for (const pid of shellChildren.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Already gone.
		}
	}
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 25));

/** `sh <args>`: its standard output once it ends, and the pid of the process it starts. */
function startShell(args: string[]) {
	const shell = spawn("sh", args, { stdio: ["ignore", "pipe", "inherit"] });
	let out = "";
	shell.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		out += chunk;
	});
	const output = new Promise<string>((resolve) => shell.on("close", () => resolve(out)));
	const childPid = async (): Promise<number> => {
		for (;;) {
			const children = readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, "utf8").trim();
			if (children !== "") {
				const pid = Number(children.split(" ")[0]);
				shellChildren.push(pid);
				return pid;
			}
			await pause();
		}
	};
	return { output, childPid };
}

function cli(argv: string[], options: { stdinFrom?: string } = {}): CliProcess {
	const started = startCliProcess(argv, options);
	running.push(started);
	return started;
}

/** A /proc/<pid>/status field in KiB, or undefined once the process is gone. */
function statusKib(pid: number, field: string): number | undefined {
	try {
		const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The process's end, watched: its peak resident memory (VmHWM, which the kernel keeps) is sampled while it
 * runs, and a process that passes MAX_RSS_KIB is killed there, so reading a huge input whole fails the test
 * instead of exhausting the machine.
 */
async function endOf(process: CliProcess): Promise<{ code: number | null; peakKib: number }> {
	const pid = process.child.pid ?? 0;
	let peakKib = 0;
	const watch = setInterval(() => {
		peakKib = Math.max(peakKib, statusKib(pid, "VmHWM") ?? 0);
		if (peakKib > MAX_RSS_KIB) process.child.kill("SIGKILL");
	}, 20);
	try {
		const { code } = await process.exited;
		return { code, peakKib };
	} finally {
		clearInterval(watch);
	}
}

describe("every input is capped, and read incrementally", () => {
	test.each(["verify-ipn", "doctor", "decode-callback", "sign"])("%s --help states the limit", async (command) => {
		const { code, out } = await runCliProcess([command, "--help"]);
		expect(code).toBe(0);
		expect(out.replace(/\s+/g, " ")).toContain(
			"Every input (a file, standard input, a key file) is read up to 1 MiB, the client's own response limit",
		);
		expect(out).toContain(LIMIT_SENTENCE);
	});

	test.each([
		["verify-ipn", ["verify-ipn", "-", ...gatewayKey], "the IPN body"],
		["doctor", ["doctor", "-", ...gatewayKey], "the message"],
		["decode-callback", ["decode-callback", "-", ...gatewayKey], "the callback URL"],
		["sign", ["sign", "-", "--key", keyPath("merchant-private")], "the message"],
	])("%s with /dev/zero on standard input stops at 1 MiB and says so", { timeout: 30_000 }, async (_, argv, what) => {
		const reading = cli(argv, { stdinFrom: "/dev/zero" });
		const { code, peakKib } = await endOf(reading);
		expect(peakKib).toBeLessThan(MAX_RSS_KIB);
		expect(code).toBe(1);
		expect(reading.err()).toMatch(TOO_LARGE);
		expect(reading.err()).toContain(`${what} on standard input is larger than 1 MiB`);
	});

	test("doctor on a 55 MB file refuses it after the first MiB", { timeout: 30_000 }, async () => {
		const big = join(dir, "big.json");
		const fd = openSync(big, "w");
		writeSync(fd, '{"payload":"');
		const block = Buffer.alloc(1 << 20, "a");
		for (let i = 0; i < 55; i++) writeSync(fd, block);
		writeSync(fd, '","signature":"x"}');
		closeSync(fd);
		const doctor = cli(["doctor", big, ...gatewayKey]);
		const { code, peakKib } = await endOf(doctor);
		expect(peakKib).toBeLessThan(MAX_RSS_KIB);
		expect(code).toBe(1);
		expect(doctor.err()).toBe(
			`merchant-gateway doctor: the message file ${big} is larger than 1 MiB, the most this command reads; ` +
				"no gateway message or key comes near that size: is it the right input?\n",
		);
	});

	test("a key file is capped too: /dev/zero as --gateway-key", { timeout: 30_000 }, async () => {
		const verify = cli(["verify-ipn", "-", "--gateway-key", "/dev/zero"]);
		verify.child.stdin?.end("{}");
		const { code, peakKib } = await endOf(verify);
		expect(peakKib).toBeLessThan(MAX_RSS_KIB);
		expect(code).toBe(1);
		expect(verify.err()).toContain("the --gateway-key file /dev/zero is larger than 1 MiB");
	});

	test("an input of exactly 1 MiB is still read (the limit is inclusive)", async () => {
		const body = JSON.stringify(ipn);
		const padded = body + " ".repeat((1 << 20) - Buffer.byteLength(body));
		const exact = await runCliProcess(["verify-ipn", "-", ...gatewayKey], padded);
		expect(exact.err).toBe("");
		expect(exact.code).toBe(0);
		const over = await runCliProcess(["verify-ipn", "-", ...gatewayKey], `${padded} `);
		expect(over.code).toBe(1);
		expect(over.err).toMatch(TOO_LARGE);
	});
});

/** Whether a thread of `pid` waits in the kernel for a FIFO's other end (an open() that has not returned). */
function waitsForFifoPartner(pid: number): boolean {
	try {
		return readdirSync(`/proc/${pid}/task`).some(
			(task) => readFileSync(`/proc/${pid}/task/${task}/wchan`, "utf8") === "wait_for_partner",
		);
	} catch {
		return false;
	}
}

async function blockedOnFifo(process: CliProcess): Promise<void> {
	const pid = process.child.pid ?? 0;
	while (!waitsForFifoPartner(pid)) {
		if (process.child.exitCode !== null) throw new Error(`the CLI ended first: ${process.err()}`);
		await pause();
	}
}

/** The process's end, or "still running" if it has not ended 10 s after the signal (a hang, not a slow exit). */
function endOrHang(process: CliProcess) {
	let timer: NodeJS.Timeout | undefined;
	const hang = new Promise<"still running">((resolve) => {
		timer = setTimeout(() => resolve("still running"), 10_000);
	});
	return Promise.race([process.exited, hang]).finally(() => clearTimeout(timer));
}

describe("reading a FIFO that nobody writes to, the process ends on the signals it announces", () => {
	const fifo = join(dir, "no-writer.fifo");
	execFileSync("mkfifo", [fifo]);

	test.each([
		["verify-ipn", "SIGINT", ["verify-ipn", fifo, ...gatewayKey]],
		["verify-ipn", "SIGTERM", ["verify-ipn", fifo, ...gatewayKey]],
		["doctor", "SIGINT", ["doctor", fifo, ...gatewayKey]],
		["sign", "SIGTERM", ["sign", fifo, "--key", keyPath("merchant-private")]],
		["verify-ipn with the FIFO as --gateway-key", "SIGINT", ["verify-ipn", "-", "--gateway-key", fifo]],
	] as const)("%s, on %s", { timeout: 30_000 }, async (_, signal, argv) => {
		const blocked = cli([...argv]);
		await blockedOnFifo(blocked);
		blocked.child.kill(signal);
		expect(await endOrHang(blocked)).toEqual({ code: null, signal });
		expect(blocked.err()).toContain(`stopped by ${signal}`);
	});

	test("a shell sees exit status 130 for Ctrl+C", { timeout: 30_000 }, async () => {
		const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;
		const hook = new URL("./ts-resolve-hook.mjs", import.meta.url).pathname;
		const script = `"$0" --import "$1" "$2" verify-ipn "$3" --gateway-key "$4"; echo "status=$?"`;
		const shell = startShell(["-c", script, process.execPath, hook, main, fifo, keyPath("gateway-public")]);
		const pid = await shell.childPid();
		while (!waitsForFifoPartner(pid)) await pause();
		process.kill(pid, "SIGINT");
		expect(await shell.output).toBe("status=130\n");
	});

	test("a FIFO that is written to is read as any file", { timeout: 30_000 }, async () => {
		const written = join(dir, "written.fifo");
		execFileSync("mkfifo", [written]);
		const verify = cli(["verify-ipn", written, ...gatewayKey]);
		await blockedOnFifo(verify);
		writeFileSync(written, JSON.stringify(ipn));
		expect(await verify.exited).toEqual({ code: 0, signal: null });
		expect(JSON.parse(verify.out())).toMatchObject({ type: "transaction", transaction: { ref: "o-1" } });
	});
});

/** A CliIo whose standard input is `readStdin`; the other channels are not used by the readers. */
const stdinIo = (readStdin: (maxBytes: number) => Promise<string>): CliIo => ({
	stdout: () => {},
	stderr: () => {},
	readStdin,
	untilStopped: () => new Promise(() => {}),
});

describe("the input cap, in process", () => {
	test.each([
		["verify-ipn", verifyIpn],
		["decode-callback", decodeCallbackCommand],
		["doctor", doctor],
		["sign", sign],
	])("%s's help states the limit", (_, command) => {
		expect(command.help.replace(/\s+/g, " ")).toContain(
			"Every input (a file, standard input, a key file) is read up to 1 MiB, the client's own response limit",
		);
	});

	test("the cap is 1 MiB", () => {
		expect(MAX_INPUT_BYTES).toBe(1_048_576);
	});

	test("readCapped joins byte and text chunks and decodes UTF-8 split across chunks", async () => {
		const euro = Buffer.from("€", "utf8");
		async function* chunks() {
			yield "a";
			yield euro.subarray(0, 1);
			yield new Uint8Array(euro.subarray(1));
			yield "é";
		}
		expect(await readCapped(chunks(), 100)).toBe("a€é");
	});

	test("readCapped reads exactly the limit and refuses one byte more, counting bytes, not characters", async () => {
		async function* of(...parts: string[]) {
			yield* parts;
		}
		expect(await readCapped(of("ab", "c"), 3)).toBe("abc");
		const error = await readCapped(of("ab", "cd"), 3).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(InputTooLarge);
		expect((error as InputTooLarge).maxBytes).toBe(3);
		expect((error as InputTooLarge).message).toBe("more than 3 bytes");
		// "éé" is two characters but four bytes.
		await expect(readCapped(of("éé"), 3)).rejects.toBeInstanceOf(InputTooLarge);
	});

	test("readCapped stops at the first chunk past the limit and closes an endless source", async () => {
		let pulled = 0;
		let closed = false;
		async function* endless() {
			try {
				for (;;) {
					pulled++;
					yield new Uint8Array(1000);
				}
			} finally {
				closed = true;
			}
		}
		await expect(readCapped(endless(), 2500)).rejects.toBeInstanceOf(InputTooLarge);
		expect(pulled).toBe(3);
		expect(closed).toBe(true);
	});

	test("a file of exactly 1 MiB is read; one byte more is refused naming the file and what it holds", async () => {
		const exact = join(dir, "exact.bin");
		writeFileSync(exact, "x".repeat(MAX_INPUT_BYTES));
		expect(await readFileCapped(exact, "the --key")).toHaveLength(MAX_INPUT_BYTES);
		const over = join(dir, "over.bin");
		writeFileSync(over, "x".repeat(MAX_INPUT_BYTES + 1));
		const error = await readFileCapped(over, "the --key").catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(CliError);
		expect((error as CliError).message).toBe(
			`the --key file ${over} is larger than 1 MiB, the most this command reads; ` +
				"no gateway message or key comes near that size: is it the right input?",
		);
	});

	test("a file that cannot be read is a CliError naming it and the problem", async () => {
		const missing = join(dir, "missing.json");
		const error = await readInput(
			missing,
			stdinIo(async () => "unused"),
			"the IPN body",
		).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CliError);
		expect((error as CliError).message).toMatch(new RegExp(`^cannot read the IPN body file ${missing}: .+`));
	});

	test("- reads standard input, asking it for at most 1 MiB", async () => {
		const asked: number[] = [];
		const io = stdinIo(async (maxBytes) => {
			asked.push(maxBytes);
			return "{}";
		});
		expect(await readInput("-", io)).toBe("{}");
		expect(asked).toEqual([MAX_INPUT_BYTES]);
	});

	test("standard input over the cap is refused naming what it holds; other errors pass unchanged", async () => {
		const tooLarge = stdinIo(async (maxBytes) => {
			throw new InputTooLarge(maxBytes);
		});
		await expect(readInput("-", tooLarge)).rejects.toThrow(
			/^the input on standard input is larger than 1 MiB, the most this command reads/,
		);
		await expect(readInput("-", tooLarge, "the message")).rejects.toThrow(/^the message on standard input is larger/);
		const broken = new Error("EIO");
		const failing = stdinIo(async () => {
			throw broken;
		});
		await expect(readInput("-", failing)).rejects.toBe(broken);
	});

	test("a file path other than - is read from the file, not standard input", async () => {
		const file = join(dir, "message.json");
		writeFileSync(file, '{"a":1}');
		expect(
			await readInput(
				file,
				stdinIo(async () => "from stdin"),
			),
		).toBe('{"a":1}');
	});
});
