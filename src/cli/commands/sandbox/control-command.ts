import { ConfigurationError } from "../../../errors/configuration-error.js";
import { ConnectionError } from "../../../errors/connection-error.js";
import { GatewayError } from "../../../errors/gateway-error.js";
import { connectSandbox, type SandboxControl } from "../../../sandbox/cli-entry.js";
import { type Command, type CommandSpec, defineCommand, type Options } from "../../command.js";
import { CliError, type CliIo, EXIT, usageError } from "../../io.js";

/** The flags every command that drives a running sandbox (`merchant-gateway sandbox <name> ...`) takes. */
export const CONTROL_FLAGS = {
	"state-dir": { type: "string" },
	"sandbox-url": { type: "string" },
	json: { type: "boolean" },
} as const;

/** The lines of --help that describe CONTROL_FLAGS. */
export const CONTROL_FLAGS_HELP = `      --state-dir <dir>       The running sandbox's --state-dir: its control
                              credential, and where it listens (required)
      --sandbox-url <url>     Its loopback URL. Default: the one it recorded in
                              the state directory
      --json                  Print the result as JSON
  -h, --help                  Show this help`;

/** A `merchant-gateway sandbox <name>` command: CONTROL_FLAGS and its own `options`, named so in its messages. */
export function defineControlCommand<O extends Options = Record<never, never>>(
	spec: Omit<CommandSpec<typeof CONTROL_FLAGS & O>, "options"> & { options?: O },
): Command {
	const options = { ...CONTROL_FLAGS, ...spec.options } as typeof CONTROL_FLAGS & O;
	return defineCommand({ ...spec, options }, `sandbox ${spec.name}`);
}

/** A control call's failure as the CLI says it. */
function controlFailure(error: unknown, stateDir: string): CliError {
	if (error instanceof ConfigurationError) {
		const flagOf: Record<string, string> = { url: "--sandbox-url", stateDir: "--state-dir" };
		const said = error.issues.map((issue) => {
			const flag = flagOf[issue.field];
			return flag ? `${flag}: ${issue.message}` : issue.message;
		});
		return new CliError(said.join("; "));
	}
	if (error instanceof ConnectionError)
		return new CliError(`${error.message} Start it with: merchant-gateway sandbox --state-dir ${stateDir}`);
	if (error instanceof GatewayError) return new CliError(error.message);
	throw error;
}

/**
 * Connects to the sandbox the flags name and runs one control call, printing its result as JSON or as text;
 * errors become messages that say what to pass.
 */
export async function runControl<T>(
	io: CliIo,
	values: { "state-dir"?: string | undefined; "sandbox-url"?: string | undefined; json?: boolean | undefined },
	call: (control: SandboxControl) => Promise<T>,
	text: (result: T) => string,
): Promise<number> {
	const stateDir = values["state-dir"];
	if (!stateDir) throw usageError("--state-dir <dir> is required: the running sandbox's state directory");
	let result: T;
	try {
		result = await call(await connectSandbox({ stateDir, url: values["sandbox-url"] }));
	} catch (error) {
		throw controlFailure(error, stateDir);
	}
	io.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${text(result)}\n`);
	return EXIT.ok;
}

/** The one positional a subcommand takes, or a usage error naming it. */
export function onePositional(positionals: string[], what: string): string {
	const [value, extra] = positionals;
	if (value === undefined) throw usageError(`give ${what}`);
	if (extra !== undefined) throw usageError(`unexpected argument ${extra}`);
	return value;
}
