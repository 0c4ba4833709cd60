// Run in a fresh Node process by loaded-modules.test.ts: imports one entry of the built package
// (through the package's own exports, as a merchant's code would) and prints every module URL
// that importing it resolved. With "forge" it then loads the forge backend, to show that a
// lazily loaded package does appear once it is used.
import { registerHooks } from "node:module";

const loaded = new Set();
registerHooks({
	resolve(specifier, context, next) {
		const result = next(specifier, context);
		loaded.add(result.url);
		return result;
	},
});

const [entry, then] = process.argv.slice(2);
await import(entry);
const atImport = [...loaded];
if (then === "forge") await (await import("merchant-gateway/signing")).loadCryptoBackend("forge");
process.stdout.write(JSON.stringify({ atImport, afterUse: [...loaded] }));
