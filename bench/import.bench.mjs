// Import cost of the built package, in fresh processes: a cold
// `import("merchant-gateway")` against a cold `import("zod")` alone (zod is the
// one dependency the SDK needs at import time). Also shows which packages an
// import loads: node-forge and ky must not be among them, and the CJS build must
// still reach the forge backend when asked.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, report } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const runs = Number(process.env.IMPORT_RUNS ?? 30);

/** Milliseconds that `import(specifier)` takes in a new node process (startup excluded). */
function coldImportMs(specifier) {
	const code =
		`const t = performance.now(); await import(${JSON.stringify(specifier)}); ` +
		"process.stdout.write(String(performance.now() - t));";
	return Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }));
}

// The package resolves by its own name from inside the repository (package self-reference).
coldImportMs("merchant-gateway");
coldImportMs("zod");
const sdk = [];
const zod = [];
for (let i = 0; i < runs; i++) {
	if (i % 2 === 0) {
		zod.push(coldImportMs("zod"));
		sdk.push(coldImportMs("merchant-gateway"));
	} else {
		sdk.push(coldImportMs("merchant-gateway"));
		zod.push(coldImportMs("zod"));
	}
}
const zodMs = median(zod);
const sdkMs = median(sdk);
// report() prints values in the given unit; these are milliseconds.
report(`cold import("merchant-gateway") vs import("zod"), median of ${runs}`, {
	baselineNs: zodMs,
	candidateNs: sdkMs,
	ratio: sdkMs / zodMs,
	goal: 1.15,
	unit: "ms",
});
const fastestSdkMs = Math.min(...sdk);
const fastestZodMs = Math.min(...zod);
console.log(
	`${"".padEnd(4)}(fastest runs: ${fastestSdkMs.toFixed(1)} ms vs ${fastestZodMs.toFixed(1)} ms, ` +
		`ratio ${(fastestSdkMs / fastestZodMs).toFixed(3)}x)`,
);

/** Package names in a list of module URLs or paths. */
function packagesIn(locations) {
	const names = new Set();
	for (const location of locations) {
		const match = /node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(location);
		if (match?.[1]) names.add(match[1].replace("\\", "/"));
	}
	return [...names].sort();
}

const esmProbe = `
import { registerHooks } from "node:module";
const seen = [];
registerHooks({
	resolve(specifier, context, next) {
		const result = next(specifier, context);
		seen.push(result.url);
		return result;
	},
});
await import("merchant-gateway");
process.stdout.write(JSON.stringify(seen));`;
const esmPackages = packagesIn(
	JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", esmProbe], { cwd: root, encoding: "utf8" })),
);

const checkout = vector("checkout-request-2.0");
const cjsProbe = `
const sdk = require("merchant-gateway/signing");
const before = Object.keys(require.cache);
const [input, signature, key] = JSON.parse(process.argv[1]);
sdk.loadCryptoBackend("forge").then(() => {
	const privateKey = require("node:fs").readFileSync(key, "utf8");
	const forgeSignature = sdk.sealMessage(input, { privateKey, backend: "forge" }).signature;
	const forgeSignatureMatches = forgeSignature === signature;
	process.stdout.write(JSON.stringify({ before, after: Object.keys(require.cache), forgeSignatureMatches }));
});`;
const keyFile = fileURLToPath(new URL("../test/vectors/keys/merchant-private.pem", import.meta.url));
const cjs = JSON.parse(
	execFileSync(process.execPath, ["-e", cjsProbe, JSON.stringify([checkout.input, checkout.signature, keyFile])], {
		cwd: root,
		encoding: "utf8",
	}),
);
const cjsBefore = packagesIn(cjs.before);
const cjsAfter = packagesIn(cjs.after);

const checks = [
	[
		`ESM import loads only: ${esmPackages.join(", ") || "(no packages)"}`,
		!esmPackages.includes("node-forge") && !esmPackages.includes("ky"),
	],
	[
		`CJS require loads only: ${cjsBefore.join(", ") || "(no packages)"}`,
		!cjsBefore.includes("node-forge") && !cjsBefore.includes("ky"),
	],
	[
		`CJS loadCryptoBackend("forge") then loads node-forge and signs the vector byte for byte`,
		cjsAfter.includes("node-forge") && cjs.forgeSignatureMatches === true,
	],
];
for (const [line, ok] of checks) {
	console.log(`${line.padEnd(90)} ${ok ? "ok" : "FAILED"}`);
	if (!ok) process.exitCode = 1;
}
