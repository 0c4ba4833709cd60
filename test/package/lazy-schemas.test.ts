import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { lazySchema } from "../../src/schemas/lazy.js";

// Importing the package must not build zod schemas (the first use of each zod
// class is what made `import "merchant-gateway"` slow): module-level schemas are
// `lazySchema(...)` or builder functions. `npm run bench` measures the import;
// loaded-modules.test.ts checks what it loads.

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
