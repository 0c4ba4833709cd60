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

/** parseArgs with strict flags, positionals allowed, and parse errors turned into usage errors. */
export function parse<O extends Options>(args: string[], options: O) {
	try {
		return parseArgs({
			args,
			options: { ...options, help: { type: "boolean", short: "h" } },
			allowPositionals: true,
			strict: true,
		});
	} catch (error) {
		throw usageError((error as Error).message);
	}
}
