import { canonicalString, referenceFormOfText, type SignedStringForm } from "../canonical.js";
import { flatStringifiedForm } from "../forms/flat-stringified.js";
import { nodeSnippetForm } from "../forms/node-snippet.js";
import { retiredFirstDraftForm } from "../forms/retired-first-draft.js";
import { withoutSignature } from "../open.js";

/** A 2.0 part as received: the signed object, and the text it came from when the text was at hand. */
export interface FlatSource {
	/** The signed object (a wrapped response's `data`), signature included. */
	fields: Record<string, unknown>;
	/** The JSON text: the message's own, or the whole response's when `wrapped`. */
	text: string | undefined;
	wrapped: boolean;
}

/** The signed-string forms the doctor tries. */
export type SignatureFormName =
	| "reference"
	| "payload-2.1"
	| "node-snippet"
	| "flat-stringified"
	| "retired-first-draft";

/** A 2.0 form the doctor tries, and the export merchants pass as `signedString` for it. */
interface FlatCandidate {
	name: Exclude<SignatureFormName, "payload-2.1">;
	/** The SDK export that computes this form; undefined for the reference form, the default. */
	exportName: string | undefined;
	description: string;
	signedString(flat: FlatSource): string;
}

/** What `openFlat` hands a custom form: the received fields, signature removed, nothing trimmed. */
const asConfigured =
	(form: SignedStringForm) =>
	(flat: FlatSource): string =>
		form(withoutSignature(flat.fields));

/** The 2.0 forms in the order tried: the SDK's default first. */
export const FLAT_CANDIDATES: readonly FlatCandidate[] = [
	{
		name: "reference",
		exportName: undefined,
		description:
			"the gateway's reference form, the SDK's default: top level in PHP natural order, nested objects " +
			'as received, every leaf a string as PHP trim() makes it (true -> "1", false and null -> ""), ' +
			"json_encode escaping",
		// From the text when it was given: its own nested order and number literals.
		signedString: (flat) =>
			flat.text === undefined ? canonicalString(flat.fields) : referenceFormOfText(flat.text, flat.wrapped),
	},
	{
		name: "node-snippet",
		exportName: "nodeSnippetForm",
		description:
			"the gateway's NodeJS snippet: top level sorted with localeCompare (numeric, case-insensitive), " +
			"top-level strings trimmed by JavaScript and numbers as strings, booleans, null and nested values as " +
			'JSON.stringify writes them, "/" as "\\/", non-ASCII as is',
		signedString: asConfigured(nodeSnippetForm),
	},
	{
		name: "flat-stringified",
		exportName: "flatStringifiedForm",
		description:
			'top level only in PHP natural order, "" and null values dropped, nested objects as their ' +
			'JSON.stringify text, other values cast to strings as PHP casts them (true -> "1"), json_encode escaping',
		signedString: asConfigured(flatStringifiedForm),
	},
	{
		name: "retired-first-draft",
		exportName: "retiredFirstDraftForm",
		description:
			"this SDK's retired first form: keys sorted at every depth by code unit, strings trimmed as PHP trims, " +
			"numbers as JavaScript writes them, booleans and null as JSON literals, json_encode escaping",
		signedString: asConfigured(retiredFirstDraftForm),
	},
];

export const PAYLOAD_DESCRIPTION = "2.1: the payload text exactly as received (its UTF-8 bytes)";
