import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Budget, budgets, measure } from "../../scripts/bundle-size.js";
import { buildPackage } from "../support/build.js";

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

// The same question over the built package, as a merchant's bundler sees it (dist has a file per
// module and `sideEffects: false`), with the gzipped budgets `npm run size` prints.
describe("bundles of the built package, gzipped", () => {
	let build: Awaited<ReturnType<typeof buildPackage>>;
	beforeAll(async () => {
		build = await buildPackage();
	});
	afterAll(() => build?.cleanup());

	const budget = (name: string) => budgets.find((entry) => entry.name === name) as Budget;
	/** Inputs that belong to the client, the sandbox or a package an IPN route never needs up front. */
	const CLIENT_SIDE =
		/^(client\.js|transport\/|resources\/|sandbox\/|testing|ky$|msw$|node-forge$|signing\/forge-backend)/;

	it(`an IPN route: within ${budget("IPN route").max / 1024} KB; no client, ky, msw or sandbox`, async () => {
		const { imports, max } = budget("IPN route");
		const size = await measure(imports, build.dir);
		expect(size.eagerInputs).toContain("notifications/handler/handler.js");
		expect([...size.eagerInputs].filter((input) => CLIENT_SIDE.test(input))).toEqual([]);
		expect([...size.lazyInputs].filter((input) => CLIENT_SIDE.test(input))).toEqual([]);
		expect(size.eagerGzip).toBeLessThanOrEqual(max);
		// One file: a bundler makes a chunk of every import() it finds, and code the route shares with one
		// loads as a file of its own (node-forge's import() is in load-backend.ts, which the route never reaches).
		expect(size.eagerFiles).toBe(1);
	});

	it(`an edge IPN route that picks its crypto backend: within ${budget("edge IPN route").max / 1024} KB, node-forge only behind import()`, async () => {
		const { imports, max } = budget("edge IPN route");
		const size = await measure(imports, build.dir);
		expect(size.lazyInputs).toContain("node-forge");
		expect([...size.eagerInputs].filter((input) => CLIENT_SIDE.test(input))).toEqual([]);
		expect(size.eagerGzip).toBeLessThanOrEqual(max);
		// The entry and esbuild's runtime chunk, which a split build with a CommonJS module (node-forge) has every
		// chunk import; no SDK module in a chunk of its own: the forge backend shares none with the route.
		expect(size.eagerFiles).toBe(2);
	});

	it(`the client: within ${budget("client").max / 1024} KB, ky only behind import()`, async () => {
		const { imports, max } = budget("client");
		const size = await measure(imports, build.dir);
		expect(size.eagerInputs).toContain("client.js");
		expect([...size.eagerInputs].filter((input) => /^(ky|node-forge|msw|sandbox\/)/.test(input))).toEqual([]);
		expect(size.lazyInputs).toContain("ky");
		expect(size.eagerGzip).toBeLessThanOrEqual(max);
	});
});
