// A sandbox starter in a process of its own, for the lock race in state-lock.test.ts. Each line on stdin is a
// command: `open <dir>` opens a sandbox on the directory and prints {"won":true} or {"won":false,"message"};
// `close` closes the sandbox it holds and prints {"closed":true}.
import { createInterface } from "node:readline";
import { createSandbox, type Sandbox } from "../../../src/testing.js";
import { keys } from "../../support/vectors.js";

const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
let held: Sandbox | undefined;
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

for await (const line of createInterface({ input: process.stdin })) {
	const [command, dir] = line.split(" ");
	if (command === "open" && dir) {
		try {
			held = await createSandbox({ gatewayKeys, stateDir: dir });
			say({ won: true });
		} catch (error) {
			say({ won: false, message: (error as Error).message });
		}
	} else if (command === "close") {
		await held?.close();
		held = undefined;
		say({ closed: true });
	}
}
