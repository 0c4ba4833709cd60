import type { SignedStringForm } from "../../src/index.js";

/** A form another gateway might use: the top-level keys sorted, JSON.stringify, nothing trimmed. */
export const sortedStringify: SignedStringForm = (message) =>
	JSON.stringify(
		Object.fromEntries(
			Object.keys(message)
				.sort()
				.map((key) => [key, message[key]]),
		),
	);
