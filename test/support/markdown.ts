import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./build.js";

// Reading the documentation a merchant reads: its Markdown files, their fenced code blocks, their
// links and the anchors GitHub gives their headings.

/** The guides and the files beside them, relative to the repository root. */
export function markdownFiles(): string[] {
	const guides = readdirSync(join(root, "docs"))
		.filter((name) => name.endsWith(".md"))
		.sort()
		.map((name) => `docs/${name}`);
	return ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...guides].filter((path) => existsSync(join(root, path)));
}

/** A fenced code block: its info string's language, its text, and the line of its opening fence (1-based). */
export interface CodeBlock {
	language: string;
	code: string;
	line: number;
	/** An HTML comment `<!-- fragment -->` right before the fence: skipped on purpose. */
	fragment: boolean;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const FRAGMENT = /^\s*<!--\s*fragment\s*-->\s*$/;

/** Every fenced code block of a Markdown text, with its indentation removed. */
export function codeBlocks(markdown: string): CodeBlock[] {
	const lines = markdown.split("\n");
	const blocks: CodeBlock[] = [];
	for (let index = 0; index < lines.length; index++) {
		const open = FENCE.exec(lines[index] ?? "");
		if (!open) continue;
		const [, indent = "", fence = "", language = ""] = open;
		const body: string[] = [];
		let end = index + 1;
		while (end < lines.length && !(lines[end] ?? "").trim().startsWith(fence)) {
			const text = lines[end] ?? "";
			body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
			end++;
		}
		let previous = index - 1;
		while (previous >= 0 && (lines[previous] ?? "").trim() === "") previous--;
		const fragment = previous >= 0 && FRAGMENT.test(lines[previous] ?? "");
		blocks.push({ language: language.toLowerCase(), code: body.join("\n"), line: index + 1, fragment });
		index = end;
	}
	return blocks;
}

/** The Markdown text with every fenced block and inline code span blanked out (line numbers kept). */
export function proseOf(markdown: string): string {
	const lines = markdown.split("\n");
	let fence: string | undefined;
	return lines
		.map((line) => {
			const open = FENCE.exec(line);
			if (fence !== undefined) {
				if (line.trim().startsWith(fence)) fence = undefined;
				return "";
			}
			if (open) {
				fence = open[2];
				return "";
			}
			return line.replace(/(`+)[\s\S]*?\1/g, "");
		})
		.join("\n");
}

/** A link written `[text](target)` in prose, with its line (1-based). */
export interface MarkdownLink {
	target: string;
	line: number;
}

export function links(markdown: string): MarkdownLink[] {
	const found: MarkdownLink[] = [];
	proseOf(markdown)
		.split("\n")
		.forEach((text, index) => {
			for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
				found.push({ target: match[1] ?? "", line: index + 1 });
			}
		});
	return found;
}

/**
 * The anchors GitHub gives a document's headings: the heading's text (inline code and links reduced to
 * their text) lowercased, every character but letters, digits, spaces, `-` and `_` removed, spaces turned
 * into `-`; a repeated anchor gets `-1`, `-2`...
 */
export function headingAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of proseOfHeadings(markdown)) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const text = (heading[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
		const base = text
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, "")
			.replace(/\s/g, "-");
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

/** The lines outside fenced blocks (inline code kept: headings keep their code text). */
function proseOfHeadings(markdown: string): string[] {
	const out: string[] = [];
	let fence: string | undefined;
	for (const line of markdown.split("\n")) {
		const open = FENCE.exec(line);
		if (fence !== undefined) {
			if (line.trim().startsWith(fence)) fence = undefined;
		} else if (open) fence = open[2];
		else out.push(line);
	}
	return out;
}

export function readDoc(path: string): string {
	return readFileSync(join(root, path), "utf8");
}
