// First step of `npm test`, `npm run demo` and `npm run example`: on a Node.js the development
// tools cannot run on, say which one they need, in one sentence, before anything else fails.
// CommonJS with nothing newer than ES2015, so that any Node.js of the last decade runs it.
"use strict";

// tsup 9 (the build) wants ^22.18.0 || ^24.11.0 || >=26; vitest ^22.12.0 || ^24 || >=26; the examples
// run as .ts files, which Node.js strips of types unflagged from 22.18. The package itself needs less
// (package.json "engines").
const SUPPORTED = [
	{ major: 22, minor: 18 },
	{ major: 24, minor: 11 },
	{ major: 26, minor: 0, orLater: true },
];
const NEEDED = "Node.js 22.18 or later in the 22 line, 24.11 or later in the 24 line, or 26 and later (.nvmrc says 24)";

function supports(version) {
	const parts = String(version).replace(/^v/, "").split(".");
	const major = Number(parts[0]);
	const minor = Number(parts[1]);
	for (let i = 0; i < SUPPORTED.length; i++) {
		const line = SUPPORTED[i];
		if (major === line.major && minor >= line.minor) return true;
		if (line.orLater && major > line.major) return true;
	}
	return false;
}

function problem(version) {
	if (supports(version)) return undefined;
	const current = String(version).replace(/^v/, "");
	return "merchant-gateway's tests, demo and examples need " + NEEDED + ", and this is Node.js " + current + ".";
}

module.exports = { supports: supports, problem: problem };

if (require.main === module) {
	const message = problem(process.versions.node);
	if (message) {
		process.stderr.write(message + "\n");
		process.exit(1);
	}
}
