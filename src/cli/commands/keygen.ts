import { constants } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair } from "../../signing/generate.js";
import { type Command, parse } from "../command.js";
import { CliError, EXIT, usageError } from "../io.js";

const exists = (path: string) =>
	access(path, constants.F_OK).then(
		() => true,
		() => false,
	);

export const keygen: Command = {
	name: "keygen",
	summary: "Write a new merchant key pair to PEM files",
	help: `Usage: merchant-gateway keygen [--out <dir>] [--name <name>] [--bits <n>]

Writes <name>-private.pem (PKCS#8, mode 0600) and <name>-public.pem (SPKI).
Keep the private key secret; give the public key to the gateway.
Refuses to overwrite existing files.

Options:
  -o, --out <dir>    Directory to write to (created if missing). Default: .
  -n, --name <name>  File name prefix. Default: merchant
  -b, --bits <n>     Key size, 2048 to 4096. Default: 2048
  -h, --help         Show this help

Exit codes: 0 written, 1 a file exists or cannot be written, 2 bad usage.`,
	async run(args, io) {
		const { values, positionals } = parse(args, {
			out: { type: "string", short: "o" },
			name: { type: "string", short: "n" },
			bits: { type: "string", short: "b" },
		});
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
		const name = values.name ?? "merchant";
		if (!/^[A-Za-z0-9._-]+$/.test(name))
			throw usageError("--name may hold letters, digits, dot, dash and underscore only");
		const bits = values.bits === undefined ? 2048 : Number(values.bits);
		if (!Number.isInteger(bits) || bits < 2048 || bits > 4096 || bits % 8 !== 0)
			throw usageError("--bits must be a multiple of 8 from 2048 to 4096");
		const dir = values.out ?? ".";
		const privatePath = join(dir, `${name}-private.pem`);
		const publicPath = join(dir, `${name}-public.pem`);
		for (const path of [privatePath, publicPath])
			if (await exists(path)) throw new CliError(`${path} already exists; not overwriting it`);
		const pair = await generateKeyPair({ bits });
		try {
			await mkdir(dir, { recursive: true });
			// "wx": fail rather than overwrite, even if a file appeared meanwhile.
			await writeFile(privatePath, pair.privateKey, { mode: 0o600, flag: "wx" });
			await writeFile(publicPath, pair.publicKey, { mode: 0o644, flag: "wx" });
		} catch (error) {
			throw new CliError(`cannot write the key files: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
		}
		io.stdout(`private key: ${privatePath}\npublic key:  ${publicPath}\n`);
		return EXIT.ok;
	},
};
