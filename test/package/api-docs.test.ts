import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cardChargeOwnShape, checkoutOwnShape, orderShape, refundShape } from "../../src/schemas/request-shapes.js";
import { root } from "../support/build.js";

// `npm run docs` builds the API reference from the TSDoc, with the guides; its validation (typedoc.jsonc)
// refuses an export or a member without documentation. Checked here on a copy written to a scratch folder.

const typedoc = join(root, "node_modules", "typedoc", "bin", "typedoc");
const options = join(root, "typedoc.jsonc");

function run(args: string[]): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[typedoc, "--options", options, ...args],
			{ cwd: root, timeout: 170_000 },
			(error, stdout, stderr) => {
				resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
			},
		);
	});
}

const scratch = mkdtempSync(join(tmpdir(), "merchant-gateway-typedoc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A reflection of TypeDoc's JSON output, as far as these tests read it. */
interface Reflection {
	name: string;
	kind: number;
	children?: Reflection[];
	comment?: { summary: Array<{ text: string }> };
	flags?: { isOptional?: boolean };
	type?: { type: string; name?: string };
}
interface ProjectJson extends Reflection {
	documents?: Array<{ name: string }>;
}
/** TypeDoc's ReflectionKind.Interface. */
const INTERFACE = 256;
const INPUT = join(scratch, "api.json");

function find(node: Reflection, name: string): Reflection | undefined {
	if (node.name === name && node.kind === INTERFACE) return node;
	for (const child of node.children ?? []) {
		const found = find(child, name);
		if (found) return found;
	}
	return undefined;
}

describe("the API reference", () => {
	it("documents every export of every entry point, and every member", { timeout: 180_000 }, async () => {
		const result = await run(["--out", join(scratch, "html"), "--json", INPUT]);
		expect(result.output).not.toMatch(/warning|error/i);
		expect(result.code).toBe(0);
	});

	it("holds every guide and CONTRIBUTING.md as a project document", () => {
		const project = JSON.parse(readFileSync(INPUT, "utf8")) as ProjectJson;
		const guides = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"));
		const expected = [...guides.map((name) => `docs/${name.replace(/\.md$/, "")}`), "CONTRIBUTING"];
		expect((project.documents ?? []).map((document) => document.name).sort()).toEqual(expected.sort());
	});

	// Editor hover shows each parameter's rule and doc; the reference lists the same, field by field, instead
	// of the type they are computed from.
	const pages = [
		{ name: "CheckoutParams", shape: { ...orderShape(false), ...checkoutOwnShape() }, filled: ["merchantId"] },
		{
			name: "CardChargeParams",
			shape: { ...orderShape(false), ...cardChargeOwnShape() },
			filled: ["merchantId", "paymentMethod", "connectionMode"],
		},
		{ name: "RefundParams", shape: refundShape(), filled: ["merchantId"] },
	];
	it.each(pages)("the $name page lists every field with its doc and whether it is optional", (page) => {
		const project = JSON.parse(readFileSync(INPUT, "utf8")) as ProjectJson;
		const reflection = find(project, page.name);
		expect(reflection, `${page.name} is an interface page`).toBeDefined();
		const fields = reflection?.children ?? [];
		const expected = Object.keys(page.shape).filter((key) => !page.filled.includes(key));
		expect(fields.map((field) => field.name).sort()).toEqual(expected.sort());
		for (const field of fields) {
			const doc = (field.comment?.summary ?? []).map((part) => part.text).join("");
			expect(doc.length, `${page.name}.${field.name} has its doc`).toBeGreaterThan(5);
			// Optional exactly when its rule is `z.optional(...)` (optional in and out).
			const rule = (page.shape as Record<string, { _zod: { optin?: string; optout?: string } }>)[field.name]?._zod;
			const optional = rule?.optin === "optional" && rule.optout === "optional";
			expect(field.flags?.isOptional === true, `${page.name}.${field.name} optional`).toBe(optional);
		}
		const amount = fields.find((field) => field.name === "amount");
		expect(amount?.type).toEqual({ type: "intrinsic", name: "number" });
	});

	it("the same settings refuse an undocumented export", { timeout: 180_000 }, async () => {
		const entry = join(scratch, "entry.ts");
		writeFileSync(entry, "/** Documented. */\nexport const documented = 1;\nexport function undocumented(): void {}\n");
		const tsconfig = join(scratch, "tsconfig.json");
		writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { strict: true, types: [] }, files: [entry] }));
		const result = await run(["--emit", "none", "--entryPoints", entry, "--tsconfig", tsconfig]);
		expect(result.output).toContain("undocumented");
		expect(result.output).toContain("does not have any documentation");
		expect(result.output).not.toMatch(/documented \(Variable\)/);
		expect(result.code).not.toBe(0);
	});
});
