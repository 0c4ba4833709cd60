import type { z } from "zod";

/**
 * A fast acceptance test compiled from a zod schema's definition, for the hot
 * paths (every IPN, every gateway answer). It answers one question: "would zod
 * accept this value and return an equal copy of it?" When it says yes, the value
 * can be used as zod's output; for anything else (an invalid value, an unknown
 * key zod would strip, a construct this file does not know) the caller runs zod
 * itself, which stays the one definition of each message and the source of every
 * error message.
 *
 * Why: zod's per-field bookkeeping costs about as much as parsing the JSON it
 * checks, which on an IPN is a tenth of the RSA verification. The acceptor makes
 * no objects and no issue lists.
 *
 * Only the constructs the resource and response schemas use are compiled: object
 * (default strip mode), string with length checks, number, boolean, unknown,
 * optional, nullable, array, and record of string keys. Any other construct or
 * check makes the whole schema uncompiled (`undefined`), never approximated.
 */
export type Acceptor = (value: unknown) => boolean;

/** The parts of zod's internal definition this file reads (zod 4 `_zod.def`). */
interface Def {
	type: string;
	checks?: readonly { _zod: { def: { check: string; minimum?: number; maximum?: number; length?: number } } }[];
	shape?: Record<string, z.ZodType>;
	catchall?: z.ZodType;
	innerType?: z.ZodType;
	element?: z.ZodType;
	keyType?: z.ZodType;
	valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Thrown while compiling when a construct is not supported; the schema is then left to zod alone. */
class Unsupported extends Error {}

/** An object as JSON.parse makes them; zod's copy of any other kind would differ from it (a null prototype, a class). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function compileString(def: Def): Acceptor {
	let min = 0;
	let max = Number.POSITIVE_INFINITY;
	for (const check of def.checks ?? []) {
		const c = check._zod.def;
		if (c.check === "min_length" && typeof c.minimum === "number") min = Math.max(min, c.minimum);
		else if (c.check === "max_length" && typeof c.maximum === "number") max = Math.min(max, c.maximum);
		else throw new Unsupported(c.check);
	}
	if (min === 0 && max === Number.POSITIVE_INFINITY) return (value) => typeof value === "string";
	return (value) => typeof value === "string" && value.length >= min && value.length <= max;
}

function compileObject(def: Def): Acceptor {
	// A catchall (loose or strict object) changes what happens to unknown keys.
	if (def.catchall !== undefined || !def.shape) throw new Unsupported("object mode");
	const fields = Object.entries(def.shape).map(([key, schema]) => ({ key, accept: compile(schema), optional: isOptional(schema) }));
	const count = fields.length;
	return (value) => {
		if (!isPlainRecord(value)) return false;
		let present = 0;
		for (let i = 0; i < count; i++) {
			const field = fields[i] as (typeof fields)[number];
			const fieldValue = value[field.key];
			if (fieldValue === undefined && !Object.hasOwn(value, field.key)) {
				if (!field.optional) return false;
				continue;
			}
			present++;
			if (!field.accept(fieldValue)) return false;
		}
		// Every own key belongs to the shape: zod would strip nothing, so its copy equals the value.
		return present === Object.keys(value).length;
	};
}

/** Whether zod lets the key be absent from an object (an `optional()` at the top of the field's schema). */
function isOptional(schema: z.ZodType): boolean {
	return defOf(schema).type === "optional";
}

function compile(schema: z.ZodType): Acceptor {
	const def = defOf(schema);
	// Refinements are checks too: only the string length checks are understood here.
	if (def.type !== "string" && def.checks?.length) throw new Unsupported(`${def.type} checks`);
	switch (def.type) {
		case "string":
			return compileString(def);
		case "number":
			// zod's number refuses NaN and ±Infinity; `.finite()` adds no check in zod 4.
			return (value) => typeof value === "number" && Number.isFinite(value);
		case "boolean":
			return (value) => typeof value === "boolean";
		case "unknown":
			return () => true;
		case "optional": {
			const inner = compile(def.innerType as z.ZodType);
			return (value) => value === undefined || inner(value);
		}
		case "nullable": {
			const inner = compile(def.innerType as z.ZodType);
			return (value) => value === null || inner(value);
		}
		case "array": {
			const element = compile(def.element as z.ZodType);
			return (value) => {
				if (!Array.isArray(value)) return false;
				// Indexed, not every(): a hole would be skipped by every() but read as undefined by zod.
				for (let i = 0; i < value.length; i++) if (!(i in value) || !element(value[i])) return false;
				return true;
			};
		}
		case "record": {
			const key = defOf(def.keyType as z.ZodType);
			if (key.type !== "string" || key.checks?.length) throw new Unsupported("record keys");
			const valueAccept = compile(def.valueType as z.ZodType);
			return (value) => {
				if (!isPlainRecord(value)) return false;
				for (const name of Object.keys(value)) {
					// zod copies a record key by key; "__proto__" would not copy as data, so zod decides.
					if (name === "__proto__" || !valueAccept(value[name])) return false;
				}
				return true;
			};
		}
		case "object":
			return compileObject(def);
		default:
			throw new Unsupported(def.type);
	}
}

/**
 * Compiles the acceptor of `schema`, or returns `undefined` when the schema uses a
 * construct this file does not compile (zod then does all the work).
 */
export function compileAcceptor(schema: z.ZodType): Acceptor | undefined {
	try {
		return compile(schema);
	} catch (error) {
		if (error instanceof Unsupported) return undefined;
		throw error;
	}
}
