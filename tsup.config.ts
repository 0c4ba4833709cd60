import { rmSync } from "node:fs";
import { defineConfig } from "tsup";

/**
 * The package's entries: `merchant-gateway`, `/signing`, `/testing`, `/testing/msw` (the only one
 * that imports msw), `/opentelemetry` (the only one that imports @opentelemetry/api) and the two shared
 * stores, which import no database driver: the merchant passes a client in.
 */
const entries = {
	index: "src/index.ts",
	signing: "src/signing/index.ts",
	testing: "src/testing.ts",
	"testing-msw": "src/testing-msw.ts",
	opentelemetry: "src/opentelemetry/index.ts",
	"stores/redis": "src/stores/redis.ts",
	"stores/postgres": "src/stores/postgres.ts",
};
const external = ["ky", "node-forge", "zod", "ulid", "msw", "@opentelemetry/api"];
// Declarations marked @internal (the client's context given to resources, key handles) are left out.
const dts = { entry: entries, compilerOptions: { stripInternal: true } };

/**
 * ESM is one file per source module (dist/ mirrors src/): with `sideEffects: false` a merchant's
 * bundler keeps only the modules an import reaches, so an IPN route does not carry the client, and
 * ky and node-forge stay behind their dynamic `import()`. Node itself (the `node` export condition)
 * gets ESM bundled per entry in dist/node/, and CJS bundled per entry: loading some 90 small files
 * made a cold `import("merchant-gateway")` about 40% slower. The folder is emptied here, once,
 * rather than by each config as they run side by side.
 */
export default defineConfig((overrides) => {
	// A caller's outDir (the packed-package test helper builds elsewhere) is the base of every build
	// here, the Node ESM one in its node/ folder included; tsup would apply it to each build alike.
	const outDir = overrides.outDir ?? "dist";
	delete overrides.outDir;
	rmSync(outDir, { recursive: true, force: true });
	return [
		{
			entry: ["src/**/*.ts", "!src/cli/**"],
			format: ["esm"],
			outDir,
			bundle: false,
			dts,
			sourcemap: true,
			target: "node22",
			platform: "neutral",
		},
		{
			entry: entries,
			format: ["esm"],
			outDir: `${outDir}/node`,
			sourcemap: true,
			target: "node22",
			platform: "neutral",
			splitting: true,
			treeshake: true,
			external,
		},
		{
			entry: entries,
			format: ["cjs"],
			outDir,
			dts,
			sourcemap: true,
			target: "node22",
			platform: "neutral",
			splitting: true,
			treeshake: true,
			external,
		},
		{
			entry: { cli: "src/cli/main.ts" },
			outDir,
			format: ["esm"],
			target: "node22",
			platform: "node",
			sourcemap: true,
			banner: { js: "#!/usr/bin/env node" },
		},
	];
});
