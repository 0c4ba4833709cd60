import { join } from "node:path";
import { STATE_FILES } from "../../../sandbox/cli-entry.js";
import type { CliIo } from "../../io.js";
import type { StartKeys, StartSettings } from "./start.js";

/** What the banner shows: where the sandbox listens, its account, its keys and how to reach it. */
export interface Banner
	extends Pick<StartSettings, "merchantId" | "signVersion" | "refundApproval" | "keysDir" | "quiet">,
		Pick<StartKeys, "gateway" | "merchant" | "written"> {
	/** The listening origin: what the suggested commands use, since this machine reaches it. */
	listening: string;
	/** The origin links use: the public URL, or the listening one. */
	url: string;
	/** The directory the other commands take as --state-dir. */
	controlDir: string;
	/** The directory is temporary: removed when the sandbox stops. */
	temporary: boolean;
	/** How many transactions the --state-dir resumed (undefined without one). */
	resumed: number | undefined;
}

/** An argument as a POSIX shell reads it back unchanged: quoted when it holds anything but safe characters. */
export function shellWord(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

const command = (...args: string[]) => `  npx merchant-gateway ${args.map(shellWord).join(" ")}`;

/** The checkout create line: every flag it needs is spelled out, so it runs as printed. */
function checkoutLines(banner: Banner): string[] {
	const order = ["--amount", "10.00", "--currency", "EUR"];
	const state = ["--state-dir", banner.controlDir];
	if (!banner.merchant.privateKey) {
		return [
			"Create a checkout, signing with the private key that belongs to --merchant-key:",
			`${command("checkout", "create", ...state)} --key <merchant private key file> ${order.join(" ")}`,
		];
	}
	const version = banner.signVersion === "2.0" ? [] : ["-v", banner.signVersion];
	const args = banner.keysDir
		? ["--sandbox-url", banner.listening, "--keys-dir", banner.keysDir, "-m", banner.merchantId, ...version]
		: state;
	return ["Create a checkout and print its payment link:", command("checkout", "create", ...args, ...order)];
}

/** Where the key files are: --keys-dir, or the state directory's (a temporary one's too). */
const keysFolder = (banner: Banner) => banner.keysDir ?? join(banner.controlDir, STATE_FILES.keys);

/**
 * Prints the banner: the sandbox's facts, then commands that run as printed from another terminal; with --quiet
 * (as in CI), one line instead: where it listens, the merchant id and where the keys are.
 */
export function printBanner(io: CliIo, banner: Banner): void {
	if (banner.quiet) {
		const links = banner.url === banner.listening ? "" : `links use ${banner.url}, `;
		const account = `merchant id ${banner.merchantId}, keys in ${keysFolder(banner)}`;
		io.stdout(`Merchant Gateway sandbox listening on ${banner.listening} (${links}${account})\n`);
		return;
	}
	const { url, controlDir } = banner;
	const lines = [`Merchant Gateway sandbox listening on ${banner.listening}`];
	if (url !== banner.listening) lines.push(`  public URL:       ${url}   (every link uses it)`);
	const resumed =
		banner.resumed === undefined ? "" : `; ${banner.resumed} transaction${banner.resumed === 1 ? "" : "s"} resumed`;
	const where = banner.temporary
		? "(temporary: removed when the sandbox stops; --state-dir <dir> keeps one)"
		: `(keys, control credential, state${resumed})`;
	lines.push(
		`  API base URL:     ${url}   (POST ${url}/v2/checkout ...)`,
		`  merchant id:      ${banner.merchantId}`,
		`  signing version:  ${banner.signVersion}`,
		`  refund approval:  ${banner.refundApproval}`,
		`  state dir:        ${controlDir}   ${where}`,
		"  http://127.0.0.1 and http://localhost notification/callback URLs are accepted (sandbox only).",
		"",
	);
	const keysIn = keysFolder(banner);
	if (banner.written.length > 0) lines.push(`  keys written: ${banner.written.join(", ")}`, "");
	else if (banner.keysDir || !banner.temporary) lines.push(`  keys in:          ${keysIn}   (reused)`, "");
	if (banner.temporary && !banner.keysDir) {
		lines.push(
			"Gateway public key (verify responses, IPNs and callbacks with it):",
			banner.gateway.publicKey.trim(),
			"",
		);
		if (banner.merchant.privateKey)
			lines.push(
				"Merchant private key (THROWAWAY sandbox key; sign requests with it):",
				banner.merchant.privateKey.trim(),
				"",
			);
		lines.push(`  (also in ${keysIn}, removed with it)`, "");
	}
	const state = ["--state-dir", controlDir];
	lines.push(
		...checkoutLines(banner),
		"",
		"Drive it from another terminal:",
		command("sandbox", "transactions", ...state),
		command("sandbox", "ipn", "list", ...state),
		command("sandbox", "clock", "advance", "30m", ...state),
		"  and sandbox refunds approve|reject <refundId>, sandbox ipn resend <id> (see sandbox --help).",
		"",
		"Test cards (expiry 12/30, CVV 123): 4242424242424242 approved, 4000000000001018 declined, 4000000000000036 3DS",
		"  (3DS password 123456 passes, 111111 fails); more in the README and on the hosted page.",
		"Press Ctrl+C to stop.",
		"",
	);
	io.stdout(lines.join("\n"));
}
