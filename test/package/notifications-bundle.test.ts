import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// A merchant whose code only receives IPNs bundles the handler, never the shared
// stores or the reconciler: the package is free of side effects, so a bundler drops
// what is not imported. This bundles such an import from the sources and looks.
const root = fileURLToPath(new URL("../../", import.meta.url));

async function bundle(exports: string): Promise<string> {
	const result = await build({
		stdin: { contents: `export { ${exports} } from "./src/index.ts";`, resolveDir: root, loader: "ts" },
		bundle: true,
		write: false,
		format: "esm",
		platform: "neutral",
		treeShaking: true,
		external: ["zod", "ky", "node-forge", "ulid", "node:*"],
		logLevel: "error",
	});
	return result.outputFiles[0]?.text ?? "";
}

/** Text that only the stores and the reconciler contain. */
const STORE_MARKS = ["redis.call(", "pg_advisory_xact_lock", "ON CONFLICT"];
const RECONCILER_MARKS = ["rateLimitRetries", "DEFAULT_PENDING_STATUSES"];

describe("what a notifications-only bundle contains", () => {
	it("the IPN handler without the reconciler or any store code", async () => {
		const text = await bundle("createNotificationHandler, toNodeListener");
		expect(text).toContain("function createNotificationHandler");
		for (const mark of [...STORE_MARKS, ...RECONCILER_MARKS]) expect(text, mark).not.toContain(mark);
	});

	it("the reconciler when it is imported (the check above can see it)", async () => {
		const text = await bundle("createReconciler");
		for (const mark of RECONCILER_MARKS) expect(text, mark).toContain(mark);
	});
});
