import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

/**
 * Request parameters and client options are documented once, in the zod shapes they are made from.
 * What a merchant's editor shows comes from the declarations: this emits them as the build does
 * (`stripInternal`), then asks TypeScript's language service what hovering a field shows.
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
let dir = "";
let service: ts.LanguageService;
let consumer = "";
const source = `import type { CardChargeParams, CheckoutParams, GatewayClientOptions, RefundParams } from "./index.js";
const c: Partial<CheckoutParams> = { orderRef: "x", feeBySeller: 1, connectionMode: "API" };
const k: Partial<CardChargeParams> = { cardNumber: "4", browserDetails: "{}", transactionDocuments: [] };
const r: Partial<RefundParams> = { reason: "y" };
const o: Partial<GatewayClientOptions> = { timeoutMs: 1, maxRetries: 2, retryBaseDelayMs: 3, fetch: undefined };
`;

beforeAll(() => {
	// Under the project's node_modules, so that the declarations resolve zod as a merchant's project would.
	const cache = join(root, "node_modules", ".cache");
	mkdirSync(cache, { recursive: true });
	dir = mkdtempSync(join(cache, "declarations-"));
	const options: ts.CompilerOptions = {
		declaration: true,
		emitDeclarationOnly: true,
		stripInternal: true,
		outDir: dir,
		rootDir: join(root, "src"),
		module: ts.ModuleKind.NodeNext,
		moduleResolution: ts.ModuleResolutionKind.NodeNext,
		target: ts.ScriptTarget.ES2022,
		strict: true,
		exactOptionalPropertyTypes: true,
		skipLibCheck: true,
		types: ["node"],
	};
	const program = ts.createProgram([join(root, "src/index.ts")], options);
	const emitted = program.emit();
	expect(emitted.emitSkipped).toBe(false);
	writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
	consumer = join(dir, "consumer.ts");
	writeFileSync(consumer, source);
	const host: ts.LanguageServiceHost = {
		getScriptFileNames: () => [consumer],
		getScriptVersion: () => "1",
		getScriptSnapshot: (file) => {
			try {
				return ts.ScriptSnapshot.fromString(readFileSync(file, "utf8"));
			} catch {
				return undefined;
			}
		},
		getCurrentDirectory: () => root,
		getCompilationSettings: () => ({ ...options, declaration: false, noEmit: true }),
		getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
		fileExists: ts.sys.fileExists,
		readFile: ts.sys.readFile,
		directoryExists: ts.sys.directoryExists,
		getDirectories: ts.sys.getDirectories,
	};
	service = ts.createLanguageService(host);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What hovering `name` (its first occurrence after `after`) shows: its documentation and `@default`. */
function hover(name: string, after: string): string {
	const position = source.indexOf(name, source.indexOf(after));
	const info = service.getQuickInfoAtPosition(consumer, position);
	const docs = ts.displayPartsToString(info?.documentation);
	const defaults = (info?.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`);
	return [docs, ...defaults].join("\n");
}

describe("the declarations keep each field's documentation for the editor", () => {
	test.each([
		["orderRef", "CheckoutParams> =", "Order reference, unique per merchant"],
		["feeBySeller", "CheckoutParams> =", "Omitted: the percentage configured for the merchant account"],
		["connectionMode", "CheckoutParams> =", "use `checkout.directPost()`"],
		["cardNumber", "CardChargeParams> =", "passing the Luhn check"],
		["browserDetails", "CardChargeParams> =", "for 3DS"],
		["transactionDocuments", "CardChargeParams> =", "Supporting documents"],
		["reason", "RefundParams> =", "Refund reason (max 1000)"],
		["timeoutMs", "GatewayClientOptions> =", "@default 30000"],
		["maxRetries", "GatewayClientOptions> =", "Creates are never retried"],
		["retryBaseDelayMs", "GatewayClientOptions> =", "full jitter"],
		["fetch", "GatewayClientOptions> =", "one-shot `ReadableStream`"],
	])("%s", (name, after, expected) => {
		expect(hover(name, after)).toContain(expected);
	});
});
