// `npm run bench`: runs every bench/*.bench.mjs against the built package, in
// order, in this one process, and prints each figure as a ratio to its baseline.
import { readdirSync } from "node:fs";
import { results } from "./lib.mjs";

const only = process.argv[2];
const files = readdirSync(new URL(".", import.meta.url))
	.filter((f) => f.endsWith(".bench.mjs") && (!only || f.includes(only)))
	.sort();
for (const file of files) {
	console.log(`\n## ${file.replace(".bench.mjs", "")}`);
	await import(new URL(file, import.meta.url).href);
}
const missed = results.filter((r) => r.goal !== undefined && r.ratio > r.goal);
const missedNames = missed.length ? `: ${missed.map((r) => r.name).join(", ")}` : "";
console.log(`\n${results.length} figures, ${missed.length} above their goal${missedNames}.`);
