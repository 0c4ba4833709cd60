// Opens and closes a state directory as another user, for state-dir-files.test.ts. Run as root with the
// directory, a uid and a gid: it takes that user's ids once Node and the sources are loaded (so the user needs
// no access to where they are installed), then prints the uid it ran as and whether the directory opened.
import { openStateDir } from "../../../src/sandbox/persistence/state-dir.js";
import { keys } from "../../support/vectors.js";

const [dir = "", uid = "", gid = ""] = process.argv.slice(2);
process.setgroups?.([]);
process.setgid?.(Number(gid));
process.setuid?.(Number(uid));
const say = (answer: { opened: boolean; message?: string }) =>
	process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), ...answer })}\n`);
try {
	const state = await openStateDir(dir, {
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
	});
	await state.close();
	say({ opened: true });
} catch (error) {
	say({ opened: false, message: String((error as Error).message) });
}
