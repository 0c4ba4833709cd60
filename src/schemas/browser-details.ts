import { z } from "zod";
import { text, typeError } from "./fields.js";

/**
 * S2S `browserDetails`: a nested object or a JSON-encoded string. The spec's
 * mandatory keys are snake_case; their camelCase spellings are accepted and
 * normalized. The optional keys keep the names the spec lists (camelCase).
 */

const digits = (what: string) =>
	z
		.union([z.string(), z.number()], { error: typeError(`${what} (digits, as text or a number)`) })
		.transform(String)
		.refine((value) => /^\d+$/.test(value), `must be ${what} (digits)`);

const nonEmptyText = () => z.string({ error: typeError("a string") }).min(1, "must not be empty");

/** The normalized object the gateway receives (built per request schema, see requests.ts). */
function browserDetailsObject() {
	return z.object({
		/** The browser's Accept header. */
		accept_header: nonEmptyText(),
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
		language: nonEmptyText(),
		/** `"true"` or `"false"` as text; a boolean is converted. */
		java_enabled: z
			.union([z.enum(["true", "false"]), z.boolean()], { error: typeError('"true" or "false"') })
			.transform((value) => String(value) as "true" | "false"),
		/** The browser's User-Agent. */
		user_agent: nonEmptyText(),
		/** UTC offset in hours, as text; a number is converted. */
		time_zone: z
			.union([z.string(), z.number()], { error: typeError("a UTC offset in hours") })
			.transform(String)
			.refine((value) => /^[+-]?\d{1,2}(\.\d{1,2})?$/.test(value), "must be a UTC offset in hours, such as -5 or +5.5"),
		/** IANA time zone name, such as `Europe/Lisbon`. */
		time_zone_name: nonEmptyText(),
		/** Ordered preferred languages. Omitted: nothing is substituted. */
		languages: z.array(z.string(), { error: typeError("an array of strings") }).optional(),
		platform: text(0, 255).optional(),
		cookieEnabled: z.boolean({ error: typeError("a boolean") }).optional(),
		online: z.boolean({ error: typeError("a boolean") }).optional(),
		/** Logical CPU cores. */
		hardwareConcurrency: z
			.number({ error: typeError("an integer") })
			.int("must be an integer")
			.optional(),
		/** Approximate memory in GB; may be unavailable. */
		deviceMemory: z.number({ error: typeError("a number") }).optional(),
		/** Available screen width. */
		availWidth: z
			.number({ error: typeError("an integer") })
			.int("must be an integer")
			.optional(),
		/** Available screen height. */
		availHeight: z
			.number({ error: typeError("an integer") })
			.int("must be an integer")
			.optional(),
		/** Page where the request originated. */
		currentUrl: text(0, 2048).optional(),
		hostname: text(0, 255).optional(),
	});
}

type SnakeToCamel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<SnakeToCamel<Tail>>}` : S;
type Snake = z.input<ReturnType<typeof browserDetailsObject>>;
type Camel = { [K in keyof Snake as SnakeToCamel<K & string>]: Snake[K] };

/** What a merchant may pass: snake_case or camelCase keys, or the JSON text of either. */
export type BrowserDetailsInput = Snake | Camel | string;
/** The normalized browser details sent to the gateway. */
export type BrowserDetails = z.output<ReturnType<typeof browserDetailsObject>>;

const SNAKE_KEYS = [
	"accept_header",
	"screen_width",
	"screen_height",
	"screen_color_depth",
	"window_width",
	"window_height",
	"java_enabled",
	"user_agent",
	"time_zone",
	"time_zone_name",
] as const;
/** camelCase spelling -> snake_case name; made with the first schema, not at module load. */
const camelToSnake = (): ReadonlyMap<string, string> => new Map(SNAKE_KEYS.map((key) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), key]));

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON text -> object, then camelCase spellings -> snake_case names. */
function normalizedInput() {
	const snakeNames = camelToSnake();
	return z.unknown().transform((value, ctx): Record<string, unknown> => {
		let object = value;
		if (value === undefined) {
			ctx.addIssue({ code: "custom", message: "is required" });
			return z.NEVER;
		}
		if (typeof value === "string") {
			try {
				object = JSON.parse(value);
			} catch {
				ctx.addIssue({ code: "custom", message: "must be a JSON object or the JSON text of one (the text is not valid JSON)" });
				return z.NEVER;
			}
		}
		if (!isPlainObject(object)) {
			ctx.addIssue({ code: "custom", message: "must be a JSON object or the JSON text of one" });
			return z.NEVER;
		}
		const out: Record<string, unknown> = {};
		for (const [key, item] of Object.entries(object)) {
			const name = snakeNames.get(key) ?? key;
			if (name !== key && Object.hasOwn(object, name)) {
				ctx.addIssue({ code: "custom", message: `is given both as ${name} and ${key}`, path: [name] });
				continue;
			}
			Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
		}
		return out;
	});
}

/** The `browserDetails` field: object or JSON text in, normalized object out. */
export const browserDetailsSchema = () => normalizedInput().pipe(browserDetailsObject()) as unknown as z.ZodType<BrowserDetails, BrowserDetailsInput>;
