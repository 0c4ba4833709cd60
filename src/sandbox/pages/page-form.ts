import { mediaType } from "../wire/authentication.js";
import { LIMITS } from "../wire/limits.js";

/** The fields of a form posted on a hosted page (the checkout page, the 3DS page). */
export type PageForm = ReadonlyMap<string, string>;

/** A posted page's form fields; anything but a URL-encoded form of reasonable size reads as an empty form. */
export function pageForm(contentType: string | null, text: string): PageForm {
	if (mediaType(contentType) !== "application/x-www-form-urlencoded" || text.length > LIMITS.pageFormBytes) {
		return new Map();
	}
	return new Map(new URLSearchParams(text));
}
