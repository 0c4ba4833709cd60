import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { lazySchema } from "../../src/schemas/lazy.js";

// Importing the package must not build zod schemas (the first use of each zod
// class is what made `import "merchant-gateway"` slow): module-level schemas are
// `lazySchema(...)` or builder functions. `npm run bench` measures the import.

describe("lazySchema", () => {
	it("builds the schema on first use, once", () => {
		let builds = 0;
		const lazy = lazySchema(() => {
			builds++;
			return z.object({ id: z.string().check(z.minLength(1)) });
		});
		expect(builds).toBe(0);
		expect(lazy.safeParse({ id: "a" })).toEqual({ success: true, data: { id: "a" } });
		expect(lazy.parse({ id: "b", extra: 1 })).toEqual({ id: "b" });
		expect(lazy.get()).toBe(lazy.get());
		expect(builds).toBe(1);
	});

	it("reports failures exactly as the schema does", () => {
		const lazy = lazySchema(() => z.object({ id: z.string().check(z.minLength(1, "must not be empty")) }));
		const result = lazy.safeParse({ id: "" });
		expect(result.success).toBe(false);
		expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
			["id", "must not be empty"],
		]);
		expect(() => lazy.parse({})).toThrow(z.core.$ZodError);
	});
});

describe("no zod schema is built at module load", () => {
	const root = fileURLToPath(new URL("../../src/", import.meta.url));
	const files = readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((file) => file.endsWith(".ts"))
		.map((file) => join(root, file));
	/** A top-level `const x = z...` (or `= z` continued on the next line). Builders (`() => z...`) and `lazySchema(() => ...)` are fine. */
	const EAGER = /^(?:export\s+)?(?:const|let|var)\s+\w+(?:\s*:[^=]+)?\s*=\s*z(?:\.|\s*$)/m;

	it("finds the source files (the walk works)", () => {
		expect(files.map((file) => relative(root, file))).toEqual(
			expect.arrayContaining(["schemas/resources.ts", "client.ts"]),
		);
	});

	it("the pattern catches eager schemas and passes lazy ones", () => {
		expect(EAGER.test("export const a = z.object({});")).toBe(true);
		expect(EAGER.test("const b = z\n\t.string()")).toBe(true);
		expect(EAGER.test("const c: z.ZodType = z.string();")).toBe(true);
		expect(EAGER.test("export const d = lazySchema(() => z.object({}));")).toBe(false);
		expect(EAGER.test("const e = () => z.string();")).toBe(false);
		expect(EAGER.test("\tconst f = z.string();")).toBe(false);
	});

	it.each(["schemas", "notifications", "resources", "signing", "client.ts"])(
		"%s builds no schema at module level",
		(area) => {
			const offenders = files.filter(
				(file) => relative(root, file).startsWith(area) && EAGER.test(readFileSync(file, "utf8")),
			);
			expect(offenders.map((file) => relative(root, file))).toEqual([]);
		},
	);
});
