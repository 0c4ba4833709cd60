import { spawnSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	constants,
	linkSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import {
	checkPrivateFolder,
	createPrivateFile,
	openPrivateFile,
	readPrivateFile,
	replacePrivateFile,
} from "../../src/sandbox/persistence/private-files.js";
import { keys } from "../support/vectors.js";
import { openAsUser } from "./support/as-user.js";

// How the sandbox opens the files of a state directory (or of a --keys-dir): what it refuses to open, and
// why, naming the path and the option it comes from; a new file is created with its mode whatever the umask;
// a file is replaced whole or not at all. The links, owners and modes a start meets are in state-dir-trust.

const { O_WRONLY, O_RDWR, O_CREAT, O_APPEND } = constants;
let root: string;
let count = 0;
beforeAll(() => {
	root = mkdtempSync(join(tmpdir(), "mg-private-files-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A new private folder. */
function fresh(): string {
	const dir = join(root, `dir-${++count}`);
	mkdirSync(dir, { mode: 0o700 });
	return dir;
}

/** The ConfigurationError `attempt` rejects with: its field and message. */
async function refusal(attempt: Promise<unknown>): Promise<{ field: string | undefined; message: string }> {
	const error = await attempt.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(ConfigurationError);
	const issues = (error as ConfigurationError).issues;
	expect(issues).toHaveLength(1);
	return { field: issues[0]?.field, message: issues[0]?.message ?? "" };
}

/** The file descriptors this process has open (Linux). */
const openDescriptors = () => readdirSync("/proc/self/fd").length;

describe("a folder for state files", () => {
	test("that does not exist is refused as missing, on the option it came from", async () => {
		const path = join(fresh(), "missing");
		expect(await refusal(checkPrivateFolder(path, { field: "keysDir", followLink: true }))).toEqual({
			field: "keysDir",
			message: `${path} does not exist`,
		});
	});

	test("that cannot be looked at is refused with the system's reason", async () => {
		const dir = fresh();
		writeFileSync(join(dir, "file"), "a file\n");
		const path = join(dir, "file", "keys");
		expect(await refusal(checkPrivateFolder(path, { followLink: false }))).toEqual({
			field: "stateDir",
			message: `${path} cannot be opened: a part of the path is not a directory (ENOTDIR)`,
		});
	});

	test("that is a file is refused, saying to move it away", async () => {
		const path = join(fresh(), "keys");
		writeFileSync(path, "a file\n");
		expect((await refusal(checkPrivateFolder(path, { followLink: false }))).message).toBe(
			`${path} is not a directory: move it away, then start again`,
		);
	});

	test("given as a link to a folder: followed when it is the path the user gave, refused otherwise", async () => {
		const dir = fresh();
		const target = join(dir, "target");
		mkdirSync(target, { mode: 0o700 });
		const link = join(dir, "keys");
		symlinkSync(target, link);
		await expect(checkPrivateFolder(link, { followLink: true })).resolves.toBeUndefined();
		expect((await refusal(checkPrivateFolder(link, { followLink: false }))).message).toBe(
			`${link} is a symbolic link, and the sandbox follows no link in its state directory: remove the link, ` +
				`then start again (rm ${link})`,
		);
	});

	test("writable by others is refused with its mode in octal and the chmod that fixes it", async () => {
		const path = join(fresh(), "keys");
		mkdirSync(path);
		chmodSync(path, 0o707);
		expect((await refusal(checkPrivateFolder(path, { followLink: false }))).message).toBe(
			`${path} may be written by other users (mode 0707): run chmod 700 ${path}`,
		);
	});
});

// Root may write anywhere anyway, so what root owns is trusted like the user's own; seen as another user.
const asRoot = process.platform !== "win32" && process.getuid?.() === 0;
test.skipIf(!asRoot)(
	"a --keys-dir and key files root owns are trusted by another user (as the user nobody; needs root)",
	() => {
		const NOBODY = 65534;
		const dir = fresh();
		chmodSync(root, 0o711);
		chmodSync(dir, 0o755);
		writeFileSync(join(dir, "gateway-private.pem"), keys.gatewayPrivate, { mode: 0o644 });
		writeFileSync(join(dir, "gateway-public.pem"), keys.gatewayPublic, { mode: 0o644 });
		expect(openAsUser(NOBODY, "keys", dir)).toEqual({ uid: NOBODY, opened: true });
		// Owned by a third user, the same folder is refused.
		chownSync(dir, NOBODY + 1, NOBODY + 1);
		expect(openAsUser(NOBODY, "keys", dir)).toMatchObject({ opened: false });
	},
);

describe("a state file opened to be read", () => {
	test("that does not exist reads as nothing", async () => {
		expect(await readPrivateFile(join(fresh(), "missing"))).toBeUndefined();
	});

	test("is read as UTF-8 text", async () => {
		const path = join(fresh(), "file");
		writeFileSync(path, "caf\u00e9 \u20ac\n");
		expect(await readPrivateFile(path)).toBe("caf\u00e9 \u20ac\n");
	});

	test("a FIFO planted in its place is refused at once, not waited on", async () => {
		const path = join(fresh(), "snapshot.ndjson");
		expect(spawnSync("mkfifo", [path]).status).toBe(0);
		expect(await refusal(readPrivateFile(path, { field: "keysDir" }))).toEqual({
			field: "keysDir",
			message: `${path} is a FIFO, where the sandbox keeps a file: move it away, then start again`,
		});
	});

	test("a directory in its place is refused as a directory", async () => {
		const path = join(fresh(), "snapshot.ndjson");
		mkdirSync(path);
		expect((await refusal(readPrivateFile(path))).message).toBe(
			`${path} is a directory, where the sandbox keeps a file: move it away, then start again`,
		);
	});

	test("a device is refused as not a regular file", async () => {
		expect((await refusal(readPrivateFile("/dev/null"))).message).toBe(
			"/dev/null is not a regular file, where the sandbox keeps a file: move it away, then start again",
		);
	});

	test("a file with another name (a hard link) may be read, but not written", async () => {
		const dir = fresh();
		const path = join(dir, "file");
		writeFileSync(path, "text\n");
		linkSync(path, join(dir, "elsewhere"));
		expect(await readPrivateFile(path)).toBe("text\n");
		for (const flags of [O_WRONLY | O_APPEND, O_RDWR]) {
			expect((await refusal(openPrivateFile(path, flags, undefined))).message).toBe(
				`${path} has another name (a hard link to a file elsewhere): remove it, then start again`,
			);
		}
	});

	test("a path through a loop of links is refused as unreadable, not as a link to remove", async () => {
		const dir = fresh();
		symlinkSync(join(dir, "loop"), join(dir, "loop"));
		const path = join(dir, "loop", "file");
		expect((await refusal(readPrivateFile(path))).message).toBe(`${path} cannot be read: error (ELOOP)`);
	});

	test("a file read, or refused, is closed", async () => {
		const dir = fresh();
		const refused = join(dir, "snapshot.ndjson");
		mkdirSync(refused);
		const read = join(dir, "journal.ndjson");
		writeFileSync(read, "text\n");
		await refusal(readPrivateFile(refused));
		await readPrivateFile(read);
		const before = openDescriptors();
		for (let round = 0; round < 5; round++) {
			await refusal(readPrivateFile(refused));
			expect(await readPrivateFile(read)).toBe("text\n");
		}
		expect(openDescriptors()).toBe(before);
	});

	test("a file that opens but cannot be read is refused with the system's reason", async () => {
		// A process's memory file: a regular file of its own that fails a read at offset 0.
		expect((await refusal(readPrivateFile("/proc/self/mem"))).message).toBe(
			"/proc/self/mem cannot be read: error (EIO)",
		);
	});
});

describe("a state file opened to be written", () => {
	test("a link in its place is refused, naming the rm that removes it", async () => {
		const dir = fresh();
		const path = join(dir, "journal.ndjson");
		symlinkSync(join(dir, "target"), path);
		expect((await refusal(openPrivateFile(path, O_WRONLY | O_CREAT, 0o600))).message).toBe(
			`${path} is a symbolic link, and the sandbox follows no link in its state directory: remove the link, ` +
				`then start again (rm ${path})`,
		);
		expect(readdirSync(dir)).toEqual(["journal.ndjson"]);
	});

	test("to be created in a folder that is gone: refused as unwritable, not taken as missing", async () => {
		const path = join(fresh(), "gone", "journal.ndjson");
		expect((await refusal(openPrivateFile(path, O_WRONLY | O_CREAT, 0o600))).message).toBe(
			`${path} cannot be written: no such file or directory (ENOENT)`,
		);
	});

	test("created with the mode asked for, whatever the umask", async () => {
		const dir = fresh();
		const path = join(dir, "shared");
		expect(await createPrivateFile(path, "text\n", 0o666)).toBe(true);
		expect(statSync(path).mode & 0o777).toBe(0o666);
		expect(readFileSync(path, "utf8")).toBe("text\n");
		const opened = await openPrivateFile(join(dir, "journal"), O_WRONLY | O_CREAT, 0o660);
		await opened?.close();
		expect(statSync(join(dir, "journal")).mode & 0o777).toBe(0o660 & ~process.umask());
	});

	test("created only where nothing has the name, not even a dangling link", async () => {
		const dir = fresh();
		const path = join(dir, "file");
		writeFileSync(path, "there before\n");
		expect(await createPrivateFile(path, "new\n", 0o600)).toBe(false);
		expect(readFileSync(path, "utf8")).toBe("there before\n");
		const link = join(dir, "link");
		symlinkSync(join(dir, "target"), link);
		expect(await createPrivateFile(link, "new\n", 0o600)).toBe(false);
		expect(readdirSync(dir).sort()).toEqual(["file", "link"]);
	});

	test("a file that cannot be created is refused, naming it", async () => {
		const path = join(fresh(), "gone", "file");
		expect(await refusal(createPrivateFile(path, "new\n", 0o600, { field: "keysDir" }))).toEqual({
			field: "keysDir",
			message: `cannot write ${path}: no such file or directory (ENOENT)`,
		});
	});

	test("replaced whole: the new text and mode, no temporary file left", async () => {
		const dir = fresh();
		const path = join(dir, "snapshot.ndjson");
		writeFileSync(path, "old\n", { mode: 0o644 });
		await replacePrivateFile(path, "new\n", 0o600);
		expect(readFileSync(path, "utf8")).toBe("new\n");
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(readdirSync(dir)).toEqual(["snapshot.ndjson"]);
		// Nothing stays open: neither the file nor the folder synced after the rename.
		const before = openDescriptors();
		for (let round = 0; round < 5; round++) await replacePrivateFile(path, `${round}\n`, 0o600);
		expect(openDescriptors()).toBe(before);
		expect(readFileSync(path, "utf8")).toBe("4\n");
	});

	test("a replacement that cannot take the name is refused, naming it, and its temporary file removed", async () => {
		const dir = fresh();
		const path = join(dir, "snapshot.ndjson");
		mkdirSync(path);
		writeFileSync(join(path, "inside"), "kept\n");
		expect(await refusal(replacePrivateFile(path, "new\n", 0o600, { field: "keysDir" }))).toEqual({
			field: "keysDir",
			message: `cannot write ${path}: it is a directory (EISDIR)`,
		});
		expect(readdirSync(dir)).toEqual(["snapshot.ndjson"]);
		expect(readFileSync(join(path, "inside"), "utf8")).toBe("kept\n");
	});
});

/** Mounts a tmpfs of `size` for the test; why it cannot, when it cannot. */
function smallDisk(size: string): string {
	const mountPoint = mkdtempSync(join(root, "disk-"));
	const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mountPoint]);
	if (mounted.status !== 0) throw new Error(`mount -t tmpfs failed: ${mounted.stderr.toString().trim()}`);
	disks.push(mountPoint);
	return mountPoint;
}
const disks: string[] = [];
afterAll(() => {
	for (const disk of disks.splice(0)) spawnSync("umount", [disk]);
});
const rootOnLinux = process.platform === "linux" && process.getuid?.() === 0;

test.skipIf(!rootOnLinux)(
	"a new file that cannot be written whole is removed, and refused naming it and why (a full disk; needs root)",
	async () => {
		const disk = smallDisk("64k");
		const path = join(disk, "gateway-private.pem");
		const message = await refusal(createPrivateFile(path, "k".repeat(256 * 1024), 0o600, { field: "keysDir" }));
		expect(message).toEqual({
			field: "keysDir",
			message: `cannot write ${path}: no space left on the device (ENOSPC)`,
		});
		expect(readdirSync(disk)).toEqual([]);
	},
);
