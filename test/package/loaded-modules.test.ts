import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Importing the package must stay cheap: IPN handlers run in cold-started functions. This imports
// each entry of the BUILT package in a fresh Node process and looks at the modules it loaded;
// `npm run bench` (bench/import.bench.mjs) measures what the import costs.

const probe = fileURLToPath(new URL("./support/probe-imports.mjs", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));

function loadedBy(entry: string, then?: "forge"): { atImport: string[]; afterUse: string[] } {
	const output = execFileSync(process.execPath, [probe, entry, ...(then ? [then] : [])], {
		cwd: root,
		encoding: "utf8",
	});
	return JSON.parse(output);
}

/** The npm packages among the loaded URLs. */
function packages(urls: readonly string[]): string[] {
	const names = urls.flatMap((url) => {
		const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
		return match?.[1] ? [match[1]] : [];
	});
	return [...new Set(names)].sort();
}

/** The package's own modules among the loaded URLs, relative to dist/. */
function ownModules(urls: readonly string[]): string[] {
	return urls
		.filter((url) => url.startsWith(`file://${root}dist/`))
		.map((url) => url.slice(`file://${root}dist/`.length));
}

describe("what importing each entry of the built package loads", () => {
	it("merchant-gateway: zod only; ky, node-forge, msw, the stores' drivers, the sandbox and the CLI stay out", () => {
		const { atImport, afterUse } = loadedBy("merchant-gateway", "forge");
		expect(packages(atImport)).toEqual(["zod"]);
		expect(ownModules(atImport).filter((path) => /^(sandbox|stores|cli)\/|testing/.test(path))).toEqual([]);
		expect(atImport).not.toContain("node:crypto");
		// The probe sees a lazy package once it is used: node-forge arrives with the forge backend.
		expect(packages(afterUse)).toEqual(["node-forge", "zod"]);
	});

	it("merchant-gateway/signing: zod at most, nothing lazy", () => {
		const { atImport } = loadedBy("merchant-gateway/signing");
		expect(packages(atImport).filter((name) => name !== "zod")).toEqual([]);
	});

	it("the stores load no database driver: the merchant passes a connected client in", () => {
		for (const entry of ["merchant-gateway/stores/redis", "merchant-gateway/stores/postgres"]) {
			const { atImport } = loadedBy(entry);
			// zod checks their options, as it does the handler's, which every route using a store loads anyway.
			expect(packages(atImport), entry).toEqual(["zod"]);
		}
	});

	it("merchant-gateway/testing: the sandbox without msw, ky or node-forge", () => {
		const { atImport } = loadedBy("merchant-gateway/testing");
		expect(
			packages(atImport).filter((name) => ["msw", "ky", "node-forge", "@mswjs/interceptors"].includes(name)),
		).toEqual([]);
	});
});
