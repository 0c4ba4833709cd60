import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair } from "../../signing/generate.js";
import { type DeprecatedFlag, defineCommand } from "../command.js";
import { FLAGS } from "../flags.js";
import { CliError, EXIT, fileProblem, usageError } from "../io.js";

/** keygen's directory flag was `-o, --out`; `--keys-dir` names a key directory in every command. */
const OLD_OUT: Record<string, DeprecatedFlag> = {
	"--out": { use: "keys-dir", why: "--keys-dir names the key directory in every command" },
	"-o": { use: "keys-dir", why: "--keys-dir names the key directory in every command" },
};

export const keygen = defineCommand({
	name: "keygen",
	summary: "Write a new merchant key pair to PEM files",
	help: `Usage: merchant-gateway keygen [--keys-dir <dir>] [--name <name>] [--bits <n>]

Writes <name>-private.pem (PKCS#8, mode 0600) and <name>-public.pem (SPKI).
Keep the private key secret; give the public key to the gateway.
Refuses to overwrite existing files.

Options:
      --keys-dir <dir>        Directory to write to (created if missing). Default: .
  -n, --name <name>           File name prefix. Default: merchant
  -b, --bits <n>              Key size, 2048 to 4096. Default: 2048
  -h, --help                  Show this help

Exit codes: 0 written, 1 a file exists or cannot be written, 2 bad usage,
130 Ctrl+C.`,
	options: { "keys-dir": FLAGS.keysDir, name: { type: "string", short: "n" }, bits: { type: "string", short: "b" } },
	deprecated: OLD_OUT,
	async run({ values, positionals }, io) {
		if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
		const name = values.name ?? "merchant";
		if (!/^[A-Za-z0-9._-]+$/.test(name))
			throw usageError("--name may hold letters, digits, dot, dash and underscore only");
		const bits = values.bits === undefined ? 2048 : Number(values.bits);
		if (!Number.isInteger(bits) || bits < 2048 || bits > 4096 || bits % 8 !== 0)
			throw usageError("--bits must be a multiple of 8 from 2048 to 4096");
		const dir = values["keys-dir"] ?? ".";
		const privatePath = join(dir, `${name}-private.pem`);
		const publicPath = join(dir, `${name}-public.pem`);
		for (const path of [privatePath, publicPath])
			if (existsSync(path)) throw new CliError(`${path} already exists; not overwriting it`);
		const pair = await generateKeyPair({ bits });
		try {
			await mkdir(dir, { recursive: true });
		} catch (error) {
			throw new CliError(`cannot create the --keys-dir directory ${dir}: ${fileProblem(error)}`);
		}
		// "wx": fail rather than overwrite, even if a file appeared meanwhile.
		for (const [path, text, mode] of [
			[privatePath, pair.privateKey, 0o600],
			[publicPath, pair.publicKey, 0o644],
		] as const) {
			try {
				await writeFile(path, text, { mode, flag: "wx" });
			} catch (error) {
				throw new CliError(`cannot write ${path}: ${fileProblem(error)}`);
			}
		}
		io.stdout(`private key: ${privatePath}\npublic key:  ${publicPath}\n`);
		return EXIT.ok;
	},
});
