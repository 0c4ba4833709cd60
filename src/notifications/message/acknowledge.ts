import { RequestValidationError } from "../../errors/request-validation-error.js";
import { redactText } from "../../internal/redact.js";

/** The spec's limit on the acknowledgement description. */
export const MAX_DESCRIPTION_LENGTH = 1500;

/**
 * The JSON body an IPN receiver responds with. `returnCode` "100" means
 * "processed, stop retrying"; anything else makes the gateway deliver again.
 */
export interface Acknowledgement {
	/** `"100"` when processed; any other code asks the gateway to deliver again. */
	returnCode: string;
	/** Free text for the gateway's logs, at most 1500 characters, redacted. */
	description?: string;
}

/**
 * Cuts a description to the spec's 1500 characters instead of throwing: an
 * acknowledgement that throws would turn a processed event into a retry loop.
 * Card-like numbers and key material are masked, since the text leaves the server.
 */
function cleanDescription(description: unknown): string | undefined {
	if (description === undefined) return undefined;
	if (typeof description !== "string")
		throw new RequestValidationError([{ field: "description", message: "must be a string" }]);
	const text = redactText(description);
	if (text.length <= MAX_DESCRIPTION_LENGTH) return text;
	// Never split a surrogate pair at the cut.
	const cut = /[\uD800-\uDBFF]/.test(text.charAt(MAX_DESCRIPTION_LENGTH - 1))
		? MAX_DESCRIPTION_LENGTH - 1
		: MAX_DESCRIPTION_LENGTH;
	return text.slice(0, cut);
}

function build(returnCode: string, description: unknown): Acknowledgement {
	const text = cleanDescription(description);
	return text === undefined ? { returnCode } : { returnCode, description: text };
}

/**
 * The body that tells the gateway an IPN was processed: `{"returnCode":"100"}`
 * plus an optional description. Send it with HTTP 200, and only once the event
 * is safely handled. Descriptions over 1500 characters are truncated.
 *
 * @throws RequestValidationError when `description` is not a string.
 */
export function acknowledge(description?: string): Acknowledgement {
	return build("100", description);
}

/**
 * The body for an IPN that was NOT processed (bad signature, malformed body, a
 * failure in your code): a `returnCode` other than "100", so the gateway
 * delivers it again. Send it with a non-2xx HTTP status; the handler uses that
 * status as the return code ("400", "500"...). Descriptions over 1500
 * characters are truncated.
 *
 * @param returnCode any code but "100". @default "500"
 * @throws RequestValidationError when `returnCode` is "100" or empty, or `description` is not a string.
 */
export function acknowledgeFailure(description?: string, returnCode = "500"): Acknowledgement {
	if (typeof returnCode !== "string" || returnCode === "" || returnCode === "100") {
		throw new RequestValidationError([
			{ field: "returnCode", message: 'a failure must use a non-empty returnCode other than "100"' },
		]);
	}
	return build(returnCode, description);
}
