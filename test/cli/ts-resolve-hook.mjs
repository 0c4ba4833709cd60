// Lets Node run the CLI's TypeScript sources directly (type stripping): `.js` specifiers
// of the sources resolve to their `.ts` files.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
	resolve(specifier, context, next) {
		if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL) {
			const ts = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
			if (!existsSync(fileURLToPath(new URL(specifier, context.parentURL))) && existsSync(fileURLToPath(ts)))
				return next(ts.href, context);
		}
		return next(specifier, context);
	},
});
