import { ConfigurationError } from "../errors/configuration-error.js";
import type { FieldIssue } from "../errors/request-validation-error.js";

/** How long a processed event is remembered when a store is not told: the memory store's default too. */
export const DEFAULT_TTL_MS = 7 * 24 * 3600 * 1000;

/** Collects option issues of one store; `done()` throws them all at once. */
export class OptionIssues {
	readonly #issues: FieldIssue[] = [];
	readonly #subject: string;

	constructor(subject: string) {
		this.#subject = subject;
	}

	add(field: string, message: string): void {
		this.#issues.push({ field, message });
	}

	positiveInteger(field: string, value: number | undefined, fallback: number): number {
		if (value === undefined) return fallback;
		if (!Number.isSafeInteger(value) || value <= 0) this.add(field, "must be a positive integer");
		return value;
	}

	done(): void {
		if (this.#issues.length > 0) throw new ConfigurationError(this.#issues, this.#subject);
	}
}

/** The driver's message, for a NotificationStoreError: its own text, else its code, else its kind. */
export function driverMessage(error: unknown): string {
	if (error instanceof Error && error.message) return error.message;
	const code = (error as { code?: unknown })?.code;
	if (typeof code === "string") return code;
	return error instanceof AggregateError ? "several connection attempts failed" : String(error);
}
