import { basename, join } from "node:path";
import { KEY_FILES } from "../../../sandbox/persistence/key-files.js";
import type { CliIo } from "../../io.js";

/** What the banner shows once the sandbox listens. */
export interface Banner {
	listening: string;
	url: string;
	merchantId: string;
	signVersion: string;
	refundApproval: string;
	gatewayPublicKey: string;
	merchantKeys: { publicKey: string; privateKey?: string | undefined };
	/** The folder of key files (--keys-dir, or the state directory's keys/), when there is one. */
	keysDir: string | undefined;
	/** The key files this start wrote (the others were reused). */
	written: string[];
	/** The state directory and how many transactions it resumed. */
	state: { dir: string; transactions: number } | undefined;
}

/** The banner: where the sandbox listens, its merchant and keys, and a command to paste. */
export function printBanner(io: CliIo, banner: Banner): void {
	const { url, keysDir } = banner;
	const lines = [`Merchant Gateway sandbox listening on ${banner.listening}`];
	if (url !== banner.listening) lines.push(`  public URL:       ${url}   (every link uses it)`);
	lines.push(
		`  API base URL:     ${url}   (POST ${url}/v2/checkout ...)`,
		`  merchant id:      ${banner.merchantId}`,
		`  signing version:  ${banner.signVersion}`,
		`  refund approval:  ${banner.refundApproval}`,
		"  http://127.0.0.1 and http://localhost notification/callback URLs are accepted (sandbox only).",
		"",
	);
	if (banner.state) {
		const { dir, transactions } = banner.state;
		lines.splice(
			-2,
			0,
			`  state directory:  ${dir}   (${transactions} transaction${transactions === 1 ? "" : "s"} resumed)`,
		);
	}
	if (keysDir) {
		const written =
			banner.written.length > 0 ? `written now: ${banner.written.map((path) => basename(path)).join(", ")}` : "reused";
		lines.push(`  keys:             ${keysDir}   (${written})`, "");
	} else {
		lines.push(
			"Gateway public key (verify responses, IPNs and callbacks with it):",
			banner.gatewayPublicKey.trim(),
			"",
		);
		if (banner.merchantKeys.privateKey)
			lines.push(
				"Merchant private key (THROWAWAY sandbox key; sign requests with it):",
				banner.merchantKeys.privateKey.trim(),
				"",
			);
	}
	const gatewayKey = keysDir ? join(keysDir, KEY_FILES.gatewayPublic) : "<gateway public key>";
	const keys =
		keysDir && banner.merchantKeys.privateKey
			? `--keys-dir ${keysDir}`
			: `--key <merchant private key> --gateway-key ${gatewayKey}`;
	const order = `-m ${banner.merchantId} --amount 10.00 --currency EUR`;
	lines.push(
		"Create a checkout and print its payment link:",
		`  npx merchant-gateway checkout create --sandbox-url ${url} ${keys} ${order}`,
		"",
		"Test cards (expiry 12/30, CVV 123): 4242424242424242 approved, 4000000000001018 declined, 4000000000000036 3DS",
		"  (3DS password 123456 passes, 111111 fails); more in the README and on the hosted page.",
		"Press Ctrl+C to stop.",
		"",
	);
	io.stdout(lines.join("\n"));
}
