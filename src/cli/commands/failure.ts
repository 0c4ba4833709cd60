import { ConfigurationError } from "../../errors/configuration-error.js";
import { GatewayError } from "../../errors/gateway-error.js";
import { redactText } from "../../internal/redact.js";
import { CliError } from "../io.js";

/** A one-line reason for stderr: the SDK's typed errors say what failed and never carry secrets. */
export function describeFailure(error: unknown): string {
	if (error instanceof GatewayError) return `${error.name}: ${redactText(error.message)}`;
	throw error;
}

/** What `work` returns; the SDK's typed error it throws becomes a CliError saying what failed. */
export function orFailure<T>(work: () => T): T {
	try {
		return work();
	} catch (error) {
		throw new CliError(describeFailure(error));
	}
}

/** The sandbox's refusal of a state directory or key folder (a ConfigurationError) as a CliError; else `error`. */
export function sandboxRefusal(error: unknown): unknown {
	if (!(error instanceof ConfigurationError)) return error;
	return new CliError(error.issues.map((issue) => issue.message).join("; "));
}
