// Opens a state directory (`state <dir>`: opened, then closed) or a --keys-dir (`keys <dir>`) as another user,
// for the tests that need a user other than root. Run as root with a uid, a gid and the command: it takes that
// user's ids once Node and the sources are loaded (so the user needs no access to where they are installed),
// then prints the uid it ran as and whether the folder opened.
import { openKeyFolder } from "../../../src/sandbox/persistence/key-files.js";
import { openStateDir } from "../../../src/sandbox/persistence/state-dir.js";
import { keys } from "../../support/vectors.js";

const [uid = "", gid = "", what = "", dir = ""] = process.argv.slice(2);
process.setgroups?.([]);
process.setgid?.(Number(gid));
process.setuid?.(Number(uid));
const say = (answer: { opened: boolean; message?: string }) =>
	process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), ...answer })}\n`);
const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
try {
	if (what === "state") await (await openStateDir(dir, { gatewayKeys })).close();
	else if (what === "keys") {
		await openKeyFolder(dir, {
			field: "keysDir",
			generate: () => Promise.reject(new Error("the folder's keys were expected")),
		});
	} else throw new Error(`unknown command ${what}`);
	say({ opened: true });
} catch (error) {
	say({ opened: false, message: String((error as Error).message) });
}
