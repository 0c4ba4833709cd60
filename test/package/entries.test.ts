import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPackage } from "../support/build.js";

// What each entry of the built package offers, from ESM and from CJS, in a plain Node process.
describe("the package's entries", () => {
	let build: Awaited<ReturnType<typeof buildPackage>>;
	beforeAll(async () => {
		build = await buildPackage();
	});
	afterAll(() => build?.cleanup());

	/** ESM mirrors src (one file per module); CJS is one bundle per entry. */
	const esmFile: Record<string, string> = { signing: "signing/index", opentelemetry: "opentelemetry/index" };

	function exportsOf(entry: string): { esm: string[]; cjs: string[] } {
		const esmPath = join(build.dir, `${esmFile[entry] ?? entry}.js`);
		const script = `
			import { createRequire } from "node:module";
			const esm = await import(${JSON.stringify(pathToFileURL(esmPath).href)});
			const cjs = createRequire(import.meta.url)(${JSON.stringify(join(build.dir, `${entry}.cjs`))});
			console.log(JSON.stringify({ esm: Object.keys(esm).sort(), cjs: Object.keys(cjs).sort() }));
		`;
		return JSON.parse(
			execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: build.dir, encoding: "utf8" }),
		);
	}

	const lowLevel = [
		"canonicalString",
		"diagnoseSignature",
		"loadCryptoBackend",
		"openCallbackUrl",
		"openMessage",
		"sealMessage",
		"useCryptoBackend",
	];

	it("merchant-gateway: keys and signed-string forms, not the low-level signing API", () => {
		const { esm, cjs } = exportsOf("index");
		expect(cjs).toEqual(esm);
		expect(esm).toEqual(
			expect.arrayContaining([
				"isGatewayError",
				"loadPrivateKey",
				"loadPublicKey",
				"nodeSnippetForm",
				"verifyNotification",
			]),
		);
		for (const name of [...lowLevel, "generateKeyPair", "sealCallbackUrl"]) expect(esm).not.toContain(name);
	});

	it("merchant-gateway/signing: the low-level signing API, keys included; no gateway-side sealing", () => {
		const { esm, cjs } = exportsOf("signing");
		expect(cjs).toEqual(esm);
		expect(esm).toEqual(expect.arrayContaining([...lowLevel, "generateKeyPair", "loadPrivateKey", "nodeSnippetForm"]));
		expect(esm).not.toContain("sealCallbackUrl");
	});

	it("merchant-gateway/testing: the sandbox and the gateway's callback sealing", () => {
		const { esm, cjs } = exportsOf("testing");
		expect(cjs).toEqual(esm);
		expect(esm).toEqual(expect.arrayContaining(["createSandbox", "sealCallbackUrl", "startSandboxServer"]));
		expect(esm).not.toContain("sandboxHandlers");
	});

	it("merchant-gateway/testing/msw: the MSW handlers, on their own", () => {
		const { esm, cjs } = exportsOf("testing-msw");
		expect(cjs).toEqual(esm);
		expect(esm).toEqual(["sandboxHandlers"]);
	});

	it("merchant-gateway/opentelemetry: the instrumentation, on its own", () => {
		const { esm, cjs } = exportsOf("opentelemetry");
		expect(cjs).toEqual(esm);
		expect(esm).toEqual(["instrumentMerchantGateway"]);
	});
});
