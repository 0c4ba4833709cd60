import * as z from "zod/mini";
import { nonEmpty, text, typeError } from "./fields.js";

/**
 * S2S `browserDetails`: a nested object or a JSON-encoded string. The spec's
 * mandatory keys are snake_case; their camelCase spellings are accepted and
 * normalized. The optional keys keep the names the spec lists (camelCase).
 */

/** A string or a number, as text. */
const textOrNumber = (error: ReturnType<typeof typeError>) =>
	z.pipe(z.union([z.string(), z.number()], { error }), z.transform(String));

const digits = (what: string) =>
	textOrNumber(typeError(`${what} (digits, as text or a number)`)).check(
		z.refine((value) => /^\d+$/.test(value), `must be ${what} (digits)`),
	);

const integer = () => z.optional(z.number({ error: typeError("an integer") }).check(z.int("must be an integer")));

/** The normalized object the gateway receives (built per request schema, see requests.ts). */
function browserDetailsObject() {
	return z.object({
		/** The browser's Accept header. */
		accept_header: nonEmpty(),
		/** Screen width in pixels. Numbers are sent as text. */
		screen_width: digits("a width in pixels"),
		/** Screen height in pixels. */
		screen_height: digits("a height in pixels"),
		/** Color depth in bits. */
		screen_color_depth: digits("a color depth in bits"),
		/** Viewport width in pixels. */
		window_width: digits("a width in pixels"),
		/** Viewport height in pixels. */
		window_height: digits("a height in pixels"),
		/** Browser language, such as `en-US`. */
		language: nonEmpty(),
		/** `"true"` or `"false"` as text; a boolean is converted. */
		java_enabled: z.pipe(
			z.union([z.enum(["true", "false"]), z.boolean()], { error: typeError('"true" or "false"') }),
			z.transform((value) => String(value) as "true" | "false"),
		),
		/** The browser's User-Agent. */
		user_agent: nonEmpty(),
		/** UTC offset in hours, as text; a number is converted. */
		time_zone: textOrNumber(typeError("a UTC offset in hours")).check(
			z.refine(
				(value) => /^[+-]?\d{1,2}(\.\d{1,2})?$/.test(value),
				"must be a UTC offset in hours, such as -5 or +5.5",
			),
		),
		/** IANA time zone name, such as `Europe/Lisbon`. */
		time_zone_name: nonEmpty(),
		/** Ordered preferred languages. Omitted: nothing is substituted. */
		languages: z.optional(z.array(z.string(), { error: typeError("an array of strings") })),
		platform: z.optional(text(0, 255)),
		cookieEnabled: z.optional(z.boolean({ error: typeError("a boolean") })),
		online: z.optional(z.boolean({ error: typeError("a boolean") })),
		/** Logical CPU cores. */
		hardwareConcurrency: integer(),
		/** Approximate memory in GB; may be unavailable. */
		deviceMemory: z.optional(z.number({ error: typeError("a number") })),
		/** Available screen width. */
		availWidth: integer(),
		/** Available screen height. */
		availHeight: integer(),
		/** Page where the request originated. */
		currentUrl: z.optional(text(0, 2048)),
		hostname: z.optional(text(0, 255)),
	});
}

type SnakeToCamel<S extends string> = S extends `${infer Head}_${infer Tail}`
	? `${Head}${Capitalize<SnakeToCamel<Tail>>}`
	: S;
type Snake = z.input<ReturnType<typeof browserDetailsObject>>;
type Camel = { [K in keyof Snake as SnakeToCamel<K & string>]: Snake[K] };

/** What a merchant may pass: snake_case or camelCase keys, or the JSON text of either. */
export type BrowserDetailsInput = Snake | Camel | string;
/** The normalized browser details sent to the gateway. */
export type BrowserDetails = z.output<ReturnType<typeof browserDetailsObject>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Records a refusal of the transformed value (zod/mini hands a transform the parse payload itself). */
function refuse(ctx: z.core.ParsePayload, message: string, path: PropertyKey[] = []): void {
	ctx.issues.push({ code: "custom", message, input: ctx.value, path });
}

/** JSON text -> object, then camelCase spellings -> snake_case names: those of `keys`, the schema's. */
function normalizedInput(keys: readonly string[]) {
	// A key without `_` is its own camelCase spelling.
	const snakeNames = new Map(keys.map((key) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), key]));
	return z.transform((value: unknown, ctx): Record<string, unknown> => {
		let object = value;
		if (value === undefined) {
			refuse(ctx, "is required");
			return z.NEVER;
		}
		if (typeof value === "string") {
			try {
				object = JSON.parse(value);
			} catch {
				refuse(ctx, "must be a JSON object or the JSON text of one (the text is not valid JSON)");
				return z.NEVER;
			}
		}
		if (!isPlainObject(object)) {
			refuse(ctx, "must be a JSON object or the JSON text of one");
			return z.NEVER;
		}
		const out: Record<string, unknown> = {};
		for (const [key, item] of Object.entries(object)) {
			const name = snakeNames.get(key) ?? key;
			if (name !== key && Object.hasOwn(object, name)) {
				refuse(ctx, `is given both as ${name} and ${key}`, [name]);
				continue;
			}
			Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
		}
		return out;
	});
}

/** The `browserDetails` field: object or JSON text in, normalized object out. */
export function browserDetailsSchema() {
	const object = browserDetailsObject();
	const normalized = z.pipe(normalizedInput(Object.keys(object.shape)), object);
	return normalized as unknown as z.ZodMiniType<BrowserDetails, BrowserDetailsInput>;
}
