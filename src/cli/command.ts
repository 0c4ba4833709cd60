import { type ParseArgsConfig, parseArgs } from "node:util";
import { CliError, type CliIo, EXIT, usageError } from "./io.js";

/** One `merchant-gateway <command>`. */
export interface Command {
	name: string;
	summary: string;
	/** The full --help text. */
	help: string;
	run(args: string[], io: CliIo): Promise<number>;
}

export type Options = NonNullable<ParseArgsConfig["options"]>;

/** An old spelling still accepted: the flag it now stands for, and why it changed (for the warning). */
export interface DeprecatedFlag {
	/** The long flag it stands for, without dashes. */
	use: string;
	why: string;
}

/** What `parse` needs besides the flags: where warnings go, and the old spellings a command still accepts. */
type ParseContext = Pick<CommandSpec<Options>, "deprecated"> & { command: string; io: CliIo };

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
		const found = Object.entries(deprecated).find(([old]) =>
			old.startsWith("--") ? arg === old || arg.startsWith(`${old}=`) : arg.startsWith(old),
		);
		if (found === undefined) {
			out.push(arg);
			continue;
		}
		const [spelling, flag] = found;
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

/** Edit distance, for suggesting the flag a typo meant. */
function distance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++)
			row[j] = Math.min(
				(previous[j] ?? 0) + 1,
				(row[j - 1] ?? 0) + 1,
				(previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
			);
		previous = row;
	}
	return previous[b.length] ?? 0;
}

/** The long flag a mistyped `name` most likely meant, if one is close. */
function closest(name: string, options: Options): string | undefined {
	const ranked = Object.keys(options)
		.map((known) => ({ known, cost: known.startsWith(name) || name.startsWith(known) ? 0 : distance(name, known) }))
		.filter(({ cost }) => cost <= 2)
		.sort((a, b) => a.cost - b.cost);
	return ranked[0]?.known;
}

/**
 * Our own words for what parseArgs refuses, read from its tokens rather than from its messages: the flag as
 * typed and where the command's options are listed.
 */
function flagError(args: string[], options: Options, command: string): CliError | undefined {
	const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
	const help = `merchant-gateway ${command} --help`;
	for (const token of tokens) {
		if (token.kind !== "option") continue;
		const option = options[token.name];
		if (option === undefined) {
			const meant = closest(token.name, options);
			const suggestion = meant === undefined ? "" : ` (did you mean --${meant}?)`;
			return new CliError(`unknown option ${token.rawName}${suggestion}; ${help} lists the options`, EXIT.usage);
		}
		if (option.type === "string" && token.value === undefined)
			return new CliError(`${token.rawName} needs a value (see ${help})`, EXIT.usage);
		if (option.type === "boolean" && token.inlineValue)
			return new CliError(`${token.rawName} takes no value (see ${help})`, EXIT.usage);
	}
	return undefined;
}

/** parseArgs with strict flags, positionals allowed, deprecated spellings warned about, errors as usage errors. */
function parse<O extends Options>(args: string[], options: O, context: ParseContext) {
	const renamed = renameDeprecated(args, context);
	const all = { ...options, help: { type: "boolean", short: "h" } } satisfies Options;
	try {
		return parseArgs({ args: renamed, options: all, allowPositionals: true, strict: true });
	} catch (error) {
		throw flagError(renamed, all, context.command) ?? usageError((error as Error).message);
	}
}

/** A command line as `parse` reads it: the flags' values and the positionals. */
export type Parsed<O extends Options> = ReturnType<typeof parse<O>>;

/** What a command declares: its flags and their old spellings, and what it does with them. */
export interface CommandSpec<O extends Options> extends Omit<Command, "run"> {
	options: O;
	/** Old spellings, such as "-k" or "--out", mapped to today's flag. */
	deprecated?: Readonly<Record<string, DeprecatedFlag>> | undefined;
	run(parsed: Parsed<O>, io: CliIo): Promise<number>;
}

/** The action the first positional names, one of `actions`, and the positionals after it; else a usage error. */
export function actionOf<A extends string>(positionals: readonly string[], ...actions: A[]): [A, string[]] {
	const [action, ...rest] = positionals;
	const named = actions.join(" or ");
	if (!action) throw usageError(`give an action: ${named}`);
	if (!actions.some((known) => known === action)) throw usageError(`unknown action ${action}; use ${named}`);
	return [action as A, rest];
}

/**
 * A command whose flags are parsed, and whose --help is answered, as in every other command. `usedAs` is how
 * messages name it (`sandbox clock` for a subcommand).
 */
export function defineCommand<O extends Options>(spec: CommandSpec<O>, usedAs = spec.name): Command {
	return {
		name: spec.name,
		summary: spec.summary,
		help: spec.help,
		async run(args, io) {
			const parsed = parse(args, spec.options, { command: usedAs, io, deprecated: spec.deprecated });
			if ((parsed.values as { help?: boolean }).help) {
				io.stdout(`${spec.help}\n`);
				return EXIT.ok;
			}
			return spec.run(parsed, io);
		},
	};
}
