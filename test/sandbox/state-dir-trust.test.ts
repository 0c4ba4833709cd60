import {
	chmodSync,
	chownSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import { readRunningSandbox, writeRunningSandbox } from "../../src/sandbox/control/control-files.js";
import { openKeyFolder } from "../../src/sandbox/persistence/key-files.js";
import { connectSandbox, createSandbox } from "../../src/testing.js";
import { keys } from "../support/vectors.js";

// A state directory is trusted only as far as no one else can write it: a planted link at any of its files
// is never followed (the target is neither read, written, emptied nor created), and a directory (or keys/)
// that another user owns or may write is refused, naming the path and the fix. The tests run as root, so
// the directory owned by another user is made with chown.

const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const SECRET = "the user's own file\n";
const OTHER_UID = 65534;
let root: string;
let count = 0;

beforeAll(() => {
	root = mkdtempSync(join(tmpdir(), "mg-state-trust-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh path for a state directory (not created), and a file of the user's outside it. */
function fresh(): { dir: string; target: string } {
	const base = join(root, `case-${++count}`);
	mkdirSync(base, { mode: 0o700 });
	const target = join(base, "precious.txt");
	writeFileSync(target, SECRET, { mode: 0o600 });
	return { dir: join(base, "state"), target };
}

/** A state directory a sandbox has used and closed. */
async function used(): Promise<{ dir: string; target: string }> {
	const place = fresh();
	await (await createSandbox({ gatewayKeys, stateDir: place.dir })).close();
	return place;
}

const sandboxes: { close(): Promise<void> }[] = [];
afterEach(async () => {
	for (const sandbox of sandboxes.splice(0)) await sandbox.close();
});

/** The message of the ConfigurationError `attempt` rejects with; a sandbox it opens anyway is closed. */
async function refusal(attempt: Promise<{ close(): Promise<void> }>, field = "stateDir"): Promise<string> {
	const outcome = await attempt.then(
		(opened) => {
			sandboxes.push(opened);
			return undefined;
		},
		(reason: unknown) => reason,
	);
	expect(outcome).toBeInstanceOf(ConfigurationError);
	expect((outcome as ConfigurationError).issues.map((issue) => issue.field)).toEqual([field]);
	return (outcome as Error).message;
}

const open = (dir: string) => createSandbox({ gatewayKeys, stateDir: dir });

describe("a planted link in the state directory is never followed", () => {
	test("journal.ndjson linked to a file of the user's: refused, the file untouched", async () => {
		const { dir, target } = await used();
		// A file of lines that read as entries: followed, it would be loaded, emptied, then filled.
		const lines = `${JSON.stringify({ clock: { offsetMs: 0 } })}\n`;
		writeFileSync(target, lines);
		rmSync(join(dir, "journal.ndjson"));
		symlinkSync(target, join(dir, "journal.ndjson"));
		const message = await refusal(open(dir));
		expect(message).toContain(`${join(dir, "journal.ndjson")} is a symbolic link`);
		expect(message).toContain("remove the link");
		expect(readFileSync(target, "utf8")).toBe(lines);
	});

	test("a dangling journal.ndjson link does not create the file it points at", async () => {
		const { dir, target } = await used();
		const pointed = `${target}.new`;
		rmSync(join(dir, "journal.ndjson"));
		symlinkSync(pointed, join(dir, "journal.ndjson"));
		expect(await refusal(open(dir))).toContain("is a symbolic link");
		expect(existsSync(pointed)).toBe(false);
	});

	test("snapshot.ndjson linked to another directory's snapshot is not loaded", async () => {
		const other = await used();
		const sandbox = await open(other.dir);
		sandbox.addMerchant({ merchantId: "someone-else", publicKey: keys.merchantPublic });
		await sandbox.close();
		const { dir } = await used();
		rmSync(join(dir, "snapshot.ndjson"));
		symlinkSync(join(other.dir, "snapshot.ndjson"), join(dir, "snapshot.ndjson"));
		expect(await refusal(open(dir))).toContain(`${join(dir, "snapshot.ndjson")} is a symbolic link`);
	});

	test("a link planted at the snapshot's and the format file's temporary names: their targets untouched", async () => {
		const { dir, target } = await used();
		const formatTarget = `${target}.format`;
		writeFileSync(formatTarget, SECRET);
		symlinkSync(target, join(dir, "snapshot.ndjson.tmp"));
		rmSync(join(dir, "state-format.json"));
		rmSync(join(dir, "snapshot.ndjson"));
		rmSync(join(dir, "journal.ndjson"));
		symlinkSync(formatTarget, join(dir, "state-format.json.tmp"));
		const sandbox = await open(dir);
		sandboxes.push(sandbox);
		expect(readFileSync(target, "utf8")).toBe(SECRET);
		expect(readFileSync(formatTarget, "utf8")).toBe(SECRET);
		expect(lstatSync(join(dir, "snapshot.ndjson")).isFile()).toBe(true);
		expect(lstatSync(join(dir, "state-format.json")).isFile()).toBe(true);
		// Left-over temporary names are removed (the link itself, not what it points at).
		expect(existsSync(join(dir, "snapshot.ndjson.tmp"))).toBe(false);
	});

	test("a link at sandbox.json's temporary name: the target untouched, sandbox.json a file of its own", async () => {
		const { dir, target } = await used();
		symlinkSync(target, join(dir, `sandbox.json.${process.pid}.tmp`));
		const running = { url: "http://127.0.0.1:9", publicUrl: undefined, pid: 1, merchantId: "m", signVersion: "2.0" };
		await writeRunningSandbox(dir, { ...running, signVersion: "2.0" });
		expect(readFileSync(target, "utf8")).toBe(SECRET);
		expect(lstatSync(join(dir, "sandbox.json")).isFile()).toBe(true);
		expect(JSON.parse(readFileSync(join(dir, "sandbox.json"), "utf8"))).toMatchObject({ url: running.url });
	});

	test("a key file linked to a key elsewhere is not used", async () => {
		const { dir } = await used();
		const elsewhere = join(root, `elsewhere-${++count}.pem`);
		writeFileSync(elsewhere, keys.merchantPrivate, { mode: 0o600 });
		rmSync(join(dir, "keys", "gateway-private.pem"));
		symlinkSync(elsewhere, join(dir, "keys", "gateway-private.pem"));
		const message = await refusal(createSandbox({ stateDir: dir }));
		expect(message).toContain(`${join(dir, "keys", "gateway-private.pem")} is a symbolic link`);
	});

	test("keys/ as a link to another folder of keys is refused", async () => {
		const { dir } = await used();
		const { dir: other } = await used();
		rmSync(join(dir, "keys"), { recursive: true });
		symlinkSync(join(other, "keys"), join(dir, "keys"));
		expect(await refusal(createSandbox({ stateDir: dir }))).toContain(`${join(dir, "keys")} is a symbolic link`);
	});
});

describe("the control files: the token is never read through a link, nor sent where a shared directory says", () => {
	let listener: { url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> };
	beforeAll(async () => {
		const seen: IncomingHttpHeaders[] = [];
		const server = createServer((request, response) => {
			seen.push(request.headers);
			response.end("{}");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		listener = { url, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
	});
	afterAll(() => listener.close());

	/** A state directory naming the listener in sandbox.json, with a control token. */
	async function pointed(): Promise<{ dir: string; target: string }> {
		const place = await used();
		const running = { url: listener.url, publicUrl: undefined, pid: process.pid, merchantId: "m" };
		await writeRunningSandbox(place.dir, { ...running, signVersion: "2.0" });
		writeFileSync(join(place.dir, "control-token"), "the-real-token\n", { mode: 0o600 });
		return place;
	}

	test("control-token linked to a secret file: refused, nothing sent", async () => {
		const { dir, target } = await pointed();
		rmSync(join(dir, "control-token"));
		symlinkSync(target, join(dir, "control-token"));
		const message = await refusal(
			connectSandbox({ stateDir: dir }).then(async (control) => {
				await control.transactions();
				return { close: async () => {} };
			}),
		);
		expect(message).toContain(`${join(dir, "control-token")} is a symbolic link`);
		expect(listener.seen).toEqual([]);
	});

	test("control-token linked to a secret file: a starting sandbox refuses it rather than adopt it", async () => {
		const { dir, target } = await used();
		symlinkSync(target, join(dir, "control-token"));
		const { ensureControlToken } = await import("../../src/sandbox/control/control-files.js");
		const outcome = await ensureControlToken(dir).then(
			(token) => token,
			(error: unknown) => error,
		);
		expect(outcome).toBeInstanceOf(ConfigurationError);
		expect(String(outcome)).not.toContain(SECRET.trim());
	});

	test("sandbox.json as a link is not read", async () => {
		const { dir, target } = await pointed();
		writeFileSync(target, JSON.stringify({ url: listener.url, pid: 1, merchantId: "m", signVersion: "2.0" }));
		rmSync(join(dir, "sandbox.json"));
		symlinkSync(target, join(dir, "sandbox.json"));
		const message = await refusal(connectSandbox({ stateDir: dir }).then(() => ({ close: async () => {} })));
		expect(message).toContain(`${join(dir, "sandbox.json")} is a symbolic link`);
		expect(listener.seen).toEqual([]);
	});

	test("a state directory others may write: its token is not sent to the URL its sandbox.json names", async () => {
		const { dir } = await pointed();
		chmodSync(dir, 0o777);
		const message = await refusal(connectSandbox({ stateDir: dir }).then(() => ({ close: async () => {} })));
		expect(message).toContain(`${dir} may be written by other users (mode 0777): run chmod 700 ${dir}`);
		expect(listener.seen).toEqual([]);
	});
});

describe("a state directory another user owns or may write is refused, as ssh refuses such a ~/.ssh", () => {
	test("mode 0777", async () => {
		const { dir } = fresh();
		mkdirSync(dir);
		chmodSync(dir, 0o777);
		const message = await refusal(open(dir));
		expect(message).toContain(`${dir} may be written by other users (mode 0777): run chmod 700 ${dir}`);
		expect(existsSync(join(dir, "sandbox.lock"))).toBe(false);
	});

	test("group-writable (0770), and a used directory made writable later", async () => {
		const { dir } = fresh();
		mkdirSync(dir);
		chmodSync(dir, 0o770);
		expect(await refusal(open(dir))).toContain("(mode 0770): run chmod 700");
		const usedDir = (await used()).dir;
		chmodSync(usedDir, 0o757);
		expect(await refusal(open(usedDir))).toContain("(mode 0757)");
	});

	test("owned by another user", async () => {
		const { dir } = fresh();
		mkdirSync(dir, { mode: 0o700 });
		chownSync(dir, OTHER_UID, OTHER_UID);
		const message = await refusal(open(dir));
		expect(message).toContain(`${dir} is owned by uid ${OTHER_UID}, not you (uid ${process.getuid?.()})`);
		expect(message).toContain("use a directory of your own");
	});

	test("keys/ owned by another user, or writable by others", async () => {
		const { dir } = await used();
		const keysDir = join(dir, "keys");
		chownSync(keysDir, OTHER_UID, OTHER_UID);
		expect(await refusal(open(dir))).toContain(`${keysDir} is owned by uid ${OTHER_UID}, not you`);
		chownSync(keysDir, 0, 0);
		chmodSync(keysDir, 0o777);
		expect(await refusal(open(dir))).toContain(`${keysDir} may be written by other users (mode 0777)`);
	});

	test("a --keys-dir others may write", async () => {
		const { dir } = fresh();
		mkdirSync(dir, { mode: 0o777 });
		chmodSync(dir, 0o777);
		const generate = async () => gatewayKeys;
		const outcome = await openKeyFolder(dir, { field: "keysDir", generate }).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(outcome).toBeInstanceOf(ConfigurationError);
		expect(String((outcome as Error).message)).toContain(`${dir} may be written by other users (mode 0777)`);
	});

	test("a file in it owned by another user is not read", async () => {
		const { dir } = await used();
		chownSync(join(dir, "snapshot.ndjson"), OTHER_UID, OTHER_UID);
		expect(await refusal(open(dir))).toContain(`${join(dir, "snapshot.ndjson")} is owned by uid ${OTHER_UID}, not you`);
	});
});

describe("sandbox.json is read only as the sandbox writes it", () => {
	const written = { url: "http://127.0.0.1:9", pid: 42, merchantId: "M-1001", signVersion: "2.1" };
	const withFile = (content: string): string => {
		const dir = mkdtempSync(join(tmpdir(), "mg-running-"));
		writeFileSync(join(dir, "sandbox.json"), content, { mode: 0o644 });
		return dir;
	};
	const readError = async (dir: string): Promise<string> => {
		const error = await readRunningSandbox(dir).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(ConfigurationError);
		return (error as Error).message;
	};

	test("what the sandbox writes is read back, its public URL present or absent", async () => {
		expect(await readRunningSandbox(withFile(JSON.stringify(written)))).toEqual(written);
		const links = { ...written, publicUrl: "https://shop.example" };
		expect(await readRunningSandbox(withFile(JSON.stringify(links)))).toEqual(links);
	});

	test("a file that is not a JSON object is refused, naming it", async () => {
		for (const content of ["[]", "not json", '"text"']) {
			const dir = withFile(content);
			expect(await readError(dir)).toContain(`${join(dir, "sandbox.json")} cannot be read (not a JSON object)`);
		}
	});

	test.each([
		["url", 8080],
		["pid", "42"],
		["merchantId", undefined],
		["signVersion", "3.0"],
		["publicUrl", 7],
	])("a %s that is not what the sandbox writes is refused, naming the file", async (field, value) => {
		const dir = withFile(JSON.stringify({ ...written, [field]: value }));
		expect(await readError(dir)).toContain(
			`${join(dir, "sandbox.json")} is not what the sandbox writes: restart the sandbox`,
		);
	});
});
