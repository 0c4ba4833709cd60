import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const hook = fileURLToPath(new URL("../../cli/ts-resolve-hook.mjs", import.meta.url));
const script = fileURLToPath(new URL("./open-as-user.ts", import.meta.url));

/**
 * Opens a state directory or a --keys-dir as the user `uid` (its group the same number), in a child process
 * that drops to it (open-as-user.ts): what it answered. The tests run as root, who may read and write anything.
 */
export function openAsUser(uid: number, what: "state" | "keys", dir: string): unknown {
	const child = spawnSync(process.execPath, ["--import", hook, script, `${uid}`, `${uid}`, what, dir], {
		encoding: "utf8",
	});
	if (child.stderr !== "") throw new Error(`the child process failed: ${child.stderr}`);
	return JSON.parse(child.stdout) as unknown;
}
