import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Builds the package with its own tsup config (ESM, CJS and the CLI; no
 * declarations) into a fresh folder under node_modules/.cache, where the built
 * files still resolve the project's dependencies. `npm test` runs before
 * `npm run build`, so tests that need dist make their own. A package.json marks the folder ESM, as the
 * package's own does: Node looks no further up than node_modules for it, and the ESM build has a file
 * per module, type-only ones empty (which Node would otherwise load as CommonJS).
 */
export async function buildPackage(): Promise<{ dir: string; cleanup(): void }> {
	const dir = join(root, "node_modules", ".cache", "merchant-gateway-test-builds", randomUUID());
	mkdirSync(dir, { recursive: true });
	await build({ outDir: dir, dts: false, sourcemap: false, silent: true });
	writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", sideEffects: false }));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
