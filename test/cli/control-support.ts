import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayClient } from "../../src/index.js";
import { postForm, tokenOf } from "../sandbox/helpers.js";
import { keys } from "../support/vectors.js";
import { type CliProcess, runCliProcess, startCliProcess } from "./spawn.js";

/**
 * A state directory holding the vector keys, as a first start would have written them: the sandbox started
 * on it skips generating two RSA key pairs, and the test knows the keys.
 */
export function seededStateDir(name = "mg-control-"): string {
	const dir = join(mkdtempSync(join(tmpdir(), name)), "state");
	mkdirSync(join(dir, "keys"), { recursive: true, mode: 0o700 });
	writeFileSync(join(dir, "keys", "gateway-private.pem"), keys.gatewayPrivate, { mode: 0o600 });
	writeFileSync(join(dir, "keys", "merchant-private.pem"), keys.merchantPrivate, { mode: 0o600 });
	return dir;
}

/** A sandbox server process started by the CLI, once its banner is out. */
export interface SandboxProcess {
	process: CliProcess;
	/** The banner. */
	banner: string;
	/** Its loopback origin. */
	url: string;
	/** Stops it with Ctrl+C and waits for its end. */
	stop(): Promise<void>;
}

/** The end of what a sandbox prints once it listens: its banner, or with --quiet its one line. */
export const SANDBOX_READY = /(Press Ctrl\+C to stop\.|, keys in .+\))\n/;

/** Starts `merchant-gateway sandbox --port 0 <args>` and waits for its banner. */
export async function startSandboxProcess(args: string[]): Promise<SandboxProcess> {
	const child = startCliProcess(["sandbox", "--port", "0", ...args]);
	const banner = await child.waitForOutput(SANDBOX_READY);
	const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? "";
	return {
		process: child,
		banner,
		url,
		stop: async () => {
			if (child.child.exitCode === null) child.child.kill("SIGINT");
			await child.exited;
		},
	};
}

/** Runs `merchant-gateway sandbox <args> --state-dir <dir>` in its own process. */
export const control = (stateDir: string, ...args: string[]) =>
	runCliProcess(["sandbox", ...args, "--state-dir", stateDir]);

/** The merchant's side of a sandbox started on a seeded state directory, through the SDK's own client. */
export function merchantClient(url: string, merchantId = "sandbox-merchant", signVersion: "2.0" | "2.1" = "2.0") {
	return new GatewayClient({
		baseUrl: url,
		merchantId,
		privateKey: keys.merchantPrivate,
		gatewayPublicKey: keys.gatewayPublic,
		signVersion,
		allowLoopbackHttp: true,
	});
}

let orders = 0;

/** Creates a checkout whose merchant URLs all lead to `receiver`, and pays it on the hosted page. */
export async function paidCheckout(gateway: GatewayClient, receiver: string, amount = 20) {
	const session = await gateway.checkout.create({
		orderRef: `control-${process.pid}-${++orders}`,
		amount,
		currency: "EUR",
		paymentMethod: "checkout",
		orderDescription: "Two tickets",
		callbackUrl: `${receiver}/callback`,
		notificationUrl: `${receiver}/ipn`,
		cancelUrl: `${receiver}/cancel`,
		errorUrl: `${receiver}/error`,
	});
	const paid = await postForm(session.paymentLink.split("?")[0] ?? "", {
		token: tokenOf(session.paymentLink),
		action: "approve",
	});
	if (paid.status !== 303) throw new Error(`the hosted page responded ${paid.status}: ${paid.text}`);
	return session.transactionId;
}
