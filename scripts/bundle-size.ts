// What a merchant's bundle of the built package weighs: esbuild (minified, for browsers and edge
// runtimes) over dist, gzipped. `npm run size` prints the budgets; test/package/bundle-size.test.ts checks them.
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));

/** Names imported, by file in dist: `{ "index.js": ["GatewayClient"] }` is `merchant-gateway`'s `GatewayClient`. */
export type Imports = Record<string, readonly string[]>;

export interface Budget {
	name: string;
	imports: Imports;
	/** Gzipped bytes loaded up front by that import. */
	max: number;
}

export const budgets: Budget[] = [
	{
		name: "IPN route",
		imports: { "index.js": ["verifyNotification", "acknowledge", "createNotificationHandler"] },
		// Verifying, acknowledging, the store and failed events, and the lifecycle seams (no telemetry code: that
		// is merchant-gateway/opentelemetry's). Measured at 25.5 KB (25.0 before the redaction of card numbers in
		// digit runs, tokens and URL passwords, the linear key-text reader, and the redaction of a long callback
		// error only as far as it is kept); each part's gzipped share:
		// zod/mini's core 5.5 KB (the IPN's and the options' schemas), keys, verification and the Node crypto
		// backend 4.2 KB, the 2.0 signed string (text reader, fast route, PHP's rules) 3.8 KB, the claim engine,
		// memory store and failed events 3.4 KB, the handler 1.3 KB. Replays behind import() would make the route
		// two files and 0.2 KB heavier: what they share with the route becomes a chunk of its own.
		max: 25.6 * 1024,
	},
	{
		name: "edge IPN route",
		imports: {
			"index.js": ["verifyNotification", "acknowledge", "createNotificationHandler"],
			"signing/index.js": ["useCryptoBackend"],
		},
		// The IPN route's budget, plus the half kilobyte of esbuild's runtime chunk: once a CommonJS module
		// (node-forge, behind import()) is in a split build, every chunk of it imports that runtime chunk.
		max: 26.1 * 1024,
	},
	// Measured at 39.2 KB: zod's core and the request and response schemas (11.1 KB of zod alone), verifying
	// signed answers (the IPN route's signing code), the transport and the resources.
	{ name: "client", imports: { "index.js": ["GatewayClient"] }, max: 39.3 * 1024 },
];

export interface BundleSize {
	/** Gzipped bytes of the entry and the chunks it imports statically: what loads with the import. */
	eagerGzip: number;
	/** Gzipped bytes only a dynamic `import()` loads. */
	lazyGzip: number;
	/** How many files load up front: the entry, and the chunks it shares with code loaded later. */
	eagerFiles: number;
	/** The inputs of each part, named by package (`ky`, `node-forge`) or by their path in dist (`client.js`). */
	eagerInputs: Set<string>;
	lazyInputs: Set<string>;
}

/** Bundles the imports with code splitting, as a merchant's bundler would. */
export async function measure(imports: Imports, distDir = join(root, "dist")): Promise<BundleSize> {
	const contents = Object.entries(imports)
		.map(([file, names]) => `export { ${names.join(", ")} } from "./${file}";`)
		.join("\n");
	const result = await build({
		stdin: { contents, resolveDir: distDir, loader: "js" },
		bundle: true,
		write: false,
		format: "esm",
		platform: "browser",
		minify: true,
		splitting: true,
		metafile: true,
		outdir: join(distDir, ".size"),
		logLevel: "error",
	});
	const outputs = result.metafile.outputs;
	// Each dynamic import is an entry point of its own: the imports' entry is the one made from stdin.
	const entry = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === "<stdin>") ?? "";
	const eager = closure(entry, outputs, ["import-statement"]);
	const lazy = [...closure(entry, outputs, ["import-statement", "dynamic-import"])].filter((path) => !eager.has(path));
	const files = new Map(result.outputFiles.map((file) => [relative(process.cwd(), file.path), file.contents]));
	const gzip = (paths: Iterable<string>) =>
		[...paths].reduce((sum, path) => sum + gzipSync(files.get(path) ?? new Uint8Array()).length, 0);
	const name = (input: string) => {
		const inDist = relative(distDir, join(process.cwd(), input));
		if (!inDist.startsWith("..")) return inDist;
		return /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? input;
	};
	const inputsOf = (paths: Iterable<string>) =>
		new Set([...paths].flatMap((path) => Object.keys(outputs[path]?.inputs ?? {}).map(name)));
	return {
		eagerGzip: gzip(eager),
		lazyGzip: gzip(lazy),
		eagerFiles: eager.size,
		eagerInputs: inputsOf(eager),
		lazyInputs: inputsOf(lazy),
	};
}

function closure(entry: string, outputs: Metafile["outputs"], kinds: string[]): Set<string> {
	const seen = new Set<string>();
	const pending = [entry];
	for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
		if (seen.has(path)) continue;
		seen.add(path);
		for (const item of outputs[path]?.imports ?? []) if (kinds.includes(item.kind)) pending.push(item.path);
	}
	return seen;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
	for (const budget of budgets) {
		const size = await measure(budget.imports);
		const packages = [...size.lazyInputs].filter((input) => !input.endsWith(".js"));
		const verdict = size.eagerGzip <= budget.max ? "within" : "OVER";
		if (verdict === "OVER") process.exitCode = 1;
		console.log(
			`${budget.name} (${Object.values(budget.imports).flat().join(" + ")}): ` +
				`${kb(size.eagerGzip)} gzipped up front, ${verdict} ` +
				`its ${kb(budget.max)} budget; ${kb(size.lazyGzip)} more on first use (${packages.join(", ") || "SDK code"})`,
		);
	}
}
