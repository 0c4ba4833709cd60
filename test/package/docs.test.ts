import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/build.js";
import { type CodeBlock, codeBlocks, headingAnchors, links, markdownFiles, readDoc } from "../support/markdown.js";
import { consumerProject, DEPENDENCIES, packedPackage } from "../support/packed.js";

// The documentation a merchant reads cannot rot: every TypeScript snippet compiles against the package as
// published, every relative link lands, and none of it speaks of how the package was developed.

const docs = markdownFiles();
const TYPESCRIPT = new Set(["ts", "typescript"]);
/** `// file: name.ts` on a block's first line: the block is that file, for later blocks to import. */
const FILE_NAME = /^\/\/ file: ([\w./-]+\.tsx?)\s*$/;

interface Snippet {
	doc: string;
	block: CodeBlock;
	/** Its path in the consumer project. */
	file: string;
}

function snippetsOf(doc: string): { checked: Snippet[]; skipped: CodeBlock[] } {
	const folder = doc.replace(/\.md$/, "").replace(/\//g, "-");
	const blocks = codeBlocks(readDoc(doc)).filter((block) => TYPESCRIPT.has(block.language));
	const checked: Snippet[] = [];
	for (const block of blocks.filter((each) => !each.fragment)) {
		const named = FILE_NAME.exec(block.code.split("\n")[0] ?? "")?.[1];
		if (named !== undefined && normalize(named).startsWith("..")) throw new Error(`${doc}:${block.line}: ${named}`);
		checked.push({ doc, block, file: join(folder, named ?? `snippet-line-${block.line}.ts`) });
	}
	return { checked, skipped: blocks.filter((block) => block.fragment) };
}

const perDoc = docs.map((doc) => ({ doc, ...snippetsOf(doc) }));
const snippets = perDoc.flatMap((each) => each.checked);
const skipped = perDoc.flatMap((each) => each.skipped.map((block) => `${each.doc}:${block.line}`));

function exec(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(command, args, { cwd, encoding: "utf8", timeout: 240_000 }, (error, stdout, stderr) => {
			resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
		});
	});
}

describe("the TypeScript snippets of the README, the guides and CONTRIBUTING", () => {
	/** What the snippets import besides the package: the frameworks, drivers and test tools they show. */
	const packages = [
		...DEPENDENCIES,
		"@opentelemetry/api",
		"@opentelemetry/sdk-metrics",
		"@opentelemetry/sdk-trace",
		"@types/node",
		"@types/express",
		"@types/pg",
		"express",
		"hono",
		"ioredis",
		"msw",
		"pg",
		"redis",
		"vitest",
	];
	const cleanups: Array<() => void> = [];
	let project = "";

	beforeAll(async () => {
		const packed = await packedPackage();
		const made = consumerProject(packed.tarball, { packages, packageJson: { type: "module" } });
		cleanups.push(made.cleanup);
		project = made.dir;
	}, 300_000);
	afterAll(() => {
		for (const cleanup of cleanups) cleanup();
	});

	it("each document's snippets have distinct file names", () => {
		const files = snippets.map((snippet) => snippet.file);
		expect(files.filter((file, index) => files.indexOf(file) !== index)).toEqual([]);
	});

	const skippedList = skipped.length ? `: ${skipped.join(", ")}` : "";
	const title = `all ${snippets.length} compile against the packed package, strict, skipLibCheck off`;
	it(`${title} (${skipped.length} marked as fragments and skipped${skippedList})`, { timeout: 300_000 }, async () => {
		expect(snippets.length).toBeGreaterThan(20);
		for (const { file, block } of snippets) {
			mkdirSync(dirname(join(project, file)), { recursive: true });
			writeFileSync(join(project, file), `${block.code}\n`);
		}
		const compilerOptions = {
			strict: true,
			skipLibCheck: false,
			noEmit: true,
			target: "es2023",
			module: "nodenext",
			moduleResolution: "nodenext",
			// Snippets import each other as `./gateway.ts`, as Node runs them without a build step.
			allowImportingTsExtensions: true,
			lib: ["es2023", "dom", "dom.iterable"],
			types: ["node"],
			exactOptionalPropertyTypes: true,
			noUncheckedIndexedAccess: true,
		};
		const files = snippets.map((snippet) => snippet.file);
		writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files }, null, 2));
		const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
		const result = await exec(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], project);
		// Each error, at its line in the Markdown file.
		const located = result.output
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => {
				const at = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
				const snippet = at && snippets.find((each) => normalize(each.file) === normalize(at[1] ?? ""));
				if (!at || !snippet) return line;
				return `${snippet.doc}:${snippet.block.line + Number(at[2])}: ${at[4]}`;
			});
		expect(located).toEqual([]);
		expect(result.code).toBe(0);
	});
});

describe("relative links", () => {
	const anchorsOf = new Map<string, Set<string>>();
	const anchors = (path: string) => {
		let found = anchorsOf.get(path);
		if (!found) {
			found = headingAnchors(readFileSync(join(root, path), "utf8"));
			anchorsOf.set(path, found);
		}
		return found;
	};

	it.each(docs)("every relative link in %s lands on a file and, with #anchor, on a heading", (doc) => {
		const broken: string[] = [];
		for (const { target, line } of links(readDoc(doc))) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:...
			const [path = "", anchor] = target.split("#");
			const resolved = path === "" ? doc : relative(root, join(root, dirname(doc), decodeURI(path)));
			if (resolved.startsWith("..") || !existsSync(join(root, resolved))) {
				broken.push(`${doc}:${line}: ${target} (no such file)`);
				continue;
			}
			if (anchor === undefined) continue;
			if (!resolved.endsWith(".md") || statSync(join(root, resolved)).isDirectory()) {
				broken.push(`${doc}:${line}: ${target} (an anchor into a file that is not Markdown)`);
			} else if (!anchors(resolved).has(anchor)) {
				broken.push(`${doc}:${line}: ${target} (no heading with the anchor #${anchor})`);
			}
		}
		expect(broken).toEqual([]);
	});
});

describe("text a user reads says what the package does, not how it was developed", () => {
	/** "session 4", "turn 12", "issue 12", "issues #3", "earlier sessions". A checkout session is none of these. */
	const DEVELOPMENT = /\b(?:session|turn)s? \d+|\bissues? #?\d+|\b(?:earlier|previous|later) (?:sessions|turns)\b/i;

	it("the pattern tells development history from the gateway's own words", () => {
		for (const history of ["in session 4", "issue 12's goals", "since Issue #3", "turn 2 found", "earlier sessions"]) {
			expect(DEVELOPMENT.test(history), history).toBe(true);
		}
		for (const product of [
			"a checkout session expires",
			"the session's payment link",
			"sessions expire at expiresAt",
		]) {
			expect(DEVELOPMENT.test(product), product).toBe(false);
		}
	});

	/** Every file under `dir` whose name ends with `.ts`. */
	const sources = (dir: string): string[] =>
		readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
			.map((entry) => relative(root, join(entry.parentPath, entry.name)))
			.sort();

	it.each([...docs, ...sources("src")])("%s", (path) => {
		const text = readFileSync(join(root, path), "utf8");
		// In Markdown, the prose and the code a merchant copies; in src, the TSDoc, the CLI help and the messages.
		const lines = text.split("\n");
		const found = lines.flatMap((line, index) =>
			DEVELOPMENT.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
		);
		expect(found).toEqual([]);
	});
});
