import { type ParseArgsConfig, parseArgs } from "node:util";
import { type CliIo, usageError } from "./io.js";

/** One `merchant-gateway <command>`. */
export interface Command {
	name: string;
	summary: string;
	/** The full --help text. */
	help: string;
	run(args: string[], io: CliIo): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** An old spelling still accepted: the flag it now stands for, and why it changed (for the warning). */
export interface DeprecatedFlag {
	/** The long flag it stands for, without dashes. */
	use: string;
	why: string;
}

/** What `parse` needs besides the flags: where warnings go, and the old spellings a command still accepts. */
export interface ParseContext {
	command: string;
	io: CliIo;
	/** Old spellings, such as "-k" or "--out", mapped to today's flag. */
	deprecated?: Readonly<Record<string, DeprecatedFlag>> | undefined;
}

/** Rewrites deprecated spellings (`-k v`, `-kv`, `--out v`, `--out=v`) to today's flags, warning once for each. */
function renameDeprecated(args: string[], context: ParseContext): string[] {
	const deprecated = context.deprecated ?? {};
	const warned = new Set<string>();
	const out: string[] = [];
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] ?? "";
		if (arg === "--") {
			out.push(...args.slice(i));
			break;
		}
		const spelling = Object.keys(deprecated).find((old) =>
			old.startsWith("--") ? arg === old || arg.startsWith(`${old}=`) : arg.startsWith(old),
		);
		const flag = spelling === undefined ? undefined : deprecated[spelling];
		if (spelling === undefined || flag === undefined) {
			out.push(arg);
			continue;
		}
		if (!warned.has(spelling)) {
			warned.add(spelling);
			context.io.stderr(
				`merchant-gateway ${context.command}: ${spelling} is deprecated; use --${flag.use} (${flag.why})\n`,
			);
		}
		const rest = arg.slice(spelling.length);
		out.push(rest === "" ? `--${flag.use}` : `--${flag.use}=${rest.replace(/^=/, "")}`);
	}
	return out;
}

/** parseArgs with strict flags, positionals allowed, deprecated spellings warned about, errors as usage errors. */
export function parse<O extends Options>(args: string[], options: O, context: ParseContext) {
	try {
		return parseArgs({
			args: renameDeprecated(args, context),
			options: { ...options, help: { type: "boolean", short: "h" } },
			allowPositionals: true,
			strict: true,
		});
	} catch (error) {
		throw usageError((error as Error).message);
	}
}
