import { GatewayError } from "../../errors/gateway-error.js";
import { redactText } from "../../internal/redact.js";

/** A one-line reason for stderr: the SDK's typed errors say what failed and never carry secrets. */
export function describeFailure(error: unknown): string {
	if (error instanceof GatewayError) return `${error.name}: ${redactText(error.message)}`;
	throw error;
}
