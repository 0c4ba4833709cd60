import { defineConfig } from "tsup";

/**
 * Five library entries (`merchant-gateway`, `merchant-gateway/signing`, `merchant-gateway/testing`, and the
 * two shared stores `merchant-gateway/stores/redis` and `.../stores/postgres`,
 * which import no database driver: the merchant passes a client in) in ESM and
 * CJS with declarations, plus the CLI. ky is ESM-only: the SDK only reaches it
 * through a dynamic `import()`, which works from both module systems, so it can
 * stay external. node-forge is reached the same way.
 */
export default defineConfig([
	{
		entry: {
			index: "src/index.ts",
			signing: "src/signing/index.ts",
			testing: "src/testing.ts",
			"stores/redis": "src/stores/redis.ts",
			"stores/postgres": "src/stores/postgres.ts",
		},
		format: ["esm", "cjs"],
		// Declarations marked @internal (the client's context given to resources, key handles) are left out.
		dts: { compilerOptions: { stripInternal: true } },
		sourcemap: true,
		clean: true,
		target: "node22",
		platform: "neutral",
		splitting: true,
		treeshake: true,
		external: ["ky", "node-forge", "zod", "ulid", "msw"],
	},
	{
		entry: { cli: "src/cli/main.ts" },
		format: ["esm"],
		target: "node22",
		platform: "node",
		sourcemap: true,
		banner: { js: "#!/usr/bin/env node" },
	},
]);
