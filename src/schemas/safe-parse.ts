import * as z from "zod/mini";

/**
 * `zod/mini` ships no messages of its own ("Invalid input"). Where a schema leaves a rule's message to zod,
 * the SDK says it the way its own rules read ("is required", "must be a number"), naming the rule and never
 * the value, so that an IPN or a response of the wrong shape reads like a refused request. Passed per parse:
 * zod's global configuration, which a merchant's own zod may share, is left alone.
 */
const sdkWording: z.core.$ZodErrorMap = (issue) => {
	switch (issue.code) {
		case "invalid_type":
			return issue.input === undefined ? "is required" : `must be ${withArticle(issue.expected)}`;
		case "invalid_value":
			return `must be ${issue.values.map((value) => JSON.stringify(value)).join(" or ")}`;
		case "too_small":
			return `must ${bound(issue.origin, issue.exact ? "exactly" : issue.inclusive ? "at least" : "more than", issue.minimum)}`;
		case "too_big":
			return `must ${bound(issue.origin, issue.exact ? "exactly" : issue.inclusive ? "at most" : "less than", issue.maximum)}`;
		case "invalid_format":
			return issue.format === "regex" ? "is not in the expected format" : `must be a valid ${issue.format}`;
		case "not_multiple_of":
			return `must be a multiple of ${issue.divisor}`;
		case "unrecognized_keys":
			return `has fields it must not have: ${issue.keys.join(", ")}`;
		case "invalid_union":
			return "matches none of the allowed forms";
		case "invalid_key":
			return `has a key that is not allowed in this ${issue.origin}`;
		case "invalid_element":
			return `has an item that is not allowed in this ${issue.origin}`;
		default:
			return "is not valid";
	}
};

/** "a string", "an object", "an array". */
const withArticle = (type: string) => `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;

/** "have at least 1 character", "be at most 100", "have exactly 2 items". */
function bound(origin: string, relation: string, limit: number | bigint): string {
	const unit = origin === "string" ? "character" : origin === "array" || origin === "set" ? "item" : undefined;
	if (unit === undefined) return `be ${relation} ${limit}`;
	return `have ${relation} ${limit} ${unit}${limit === 1 || limit === 1n ? "" : "s"}`;
}

/** `safeParse` with the SDK's wording where a schema gives no message of its own. */
export function safeParse<S extends z.core.$ZodType>(
	schema: S,
	value: unknown,
): z.core.util.SafeParseResult<z.output<S>> {
	return z.safeParse(schema, value, { error: sdkWording });
}
