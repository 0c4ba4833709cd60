import type * as z from "zod/mini";
import { codeOfStatus, statusFromCode } from "../statuses/catalogue.js";

/**
 * Drift: what a signed message carries that the SDK does not know. The message is still handed over
 * (unknown statuses are kept, unknown fields dropped, as the schemas say); drift is only reported.
 * - `unknown_status`: a status outside the catalogue;
 * - `unknown_status_code`: a status code outside the catalogue;
 * - `unknown_field`: a field the message's schema does not have (named by its path, such as `fees.tax`).
 */
export interface Drift {
	type: "unknown_status" | "unknown_status_code" | "unknown_field";
	/** The status, the code, or the field's path: never a field's value. */
	value: string;
}

/** Fields of any signed message that belong to its envelope, not to its schema. */
const ENVELOPE_FIELDS = new Set(["signVersion"]);
/** How many unknown fields one message reports at most (a message is a few kilobytes; this bounds the work). */
const MAX_FIELDS = 20;

/**
 * The drift in a signed message's fields, checked against the schema they were parsed with. The catalogue
 * applies to messages that carry a `statusCode` (transactions and refunds, their queries and IPNs).
 */
export function findDrift(schema: z.core.$ZodType, fields: Record<string, unknown>): Drift[] {
	const found: Drift[] = [];
	if (typeof fields.statusCode === "number") {
		if (typeof fields.status === "string" && codeOfStatus(fields.status) === undefined) {
			found.push({ type: "unknown_status", value: fields.status });
		}
		if (statusFromCode(fields.statusCode) === undefined) {
			found.push({ type: "unknown_status_code", value: String(fields.statusCode) });
		}
	}
	const unknown: string[] = [];
	unknownFields(schema, fields, "", unknown, 0);
	for (const path of unknown) found.push({ type: "unknown_field", value: path });
	return found;
}

type Def = {
	type: string;
	shape?: Record<string, z.core.$ZodType>;
	innerType?: z.core.$ZodType;
	element?: z.core.$ZodType;
};

/** Collects the paths of fields `value` has and `schema` does not, through objects, arrays, optional and null. */
function unknownFields(schema: z.core.$ZodType, value: unknown, path: string, into: string[], depth: number): void {
	if (depth > 6 || into.length >= MAX_FIELDS || typeof value !== "object" || value === null) return;
	const def = schema._zod.def as Def;
	if ((def.type === "optional" || def.type === "nullable") && def.innerType) {
		unknownFields(def.innerType, value, path, into, depth);
		return;
	}
	if (def.type === "array" && def.element && Array.isArray(value)) {
		// One element stands for the others: the same unknown field in each is one drift.
		for (const item of value) unknownFields(def.element, item, `${path}[]`, into, depth + 1);
		return;
	}
	if (def.type !== "object" || !def.shape || Array.isArray(value)) return;
	for (const key in value) {
		if (!Object.hasOwn(value, key)) continue;
		const known = def.shape[key];
		const item = (value as Record<string, unknown>)[key];
		// Only objects are walked into, and a path is spelled only where it is needed: most fields are known scalars.
		if (known !== undefined && (typeof item !== "object" || item === null)) continue;
		const at = path === "" ? key : `${path}.${key}`;
		if (known === undefined) {
			if (!(path === "" && ENVELOPE_FIELDS.has(key)) && !into.includes(at)) into.push(at);
			if (into.length >= MAX_FIELDS) return;
		} else {
			unknownFields(known, item, at, into, depth + 1);
		}
	}
}
