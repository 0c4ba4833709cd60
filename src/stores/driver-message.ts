/** The driver's message, for a NotificationStoreError: its own text, else its code, else its kind. */
export function driverMessage(error: unknown): string {
	if (error instanceof Error && error.message) return error.message;
	const code = (error as { code?: unknown })?.code;
	if (typeof code === "string") return code;
	return error instanceof AggregateError ? "several connection attempts failed" : String(error);
}
