/**
 * The oldest Node.js the package runs on: `process.getBuiltinModule`, through
 * which the SDK reaches `node:crypto`, arrived in 22.3.0. package.json's
 * `engines` says the same (a test keeps the two equal).
 */
export const MIN_NODE_VERSION = "22.3.0";

interface RuntimeProcess {
	versions?: { node?: string; bun?: string; deno?: string };
}

/** The version when this is Node.js itself (Bun and Deno also fill `process.versions.node`), else undefined. */
export function nodeVersion(): string | undefined {
	const versions = (globalThis as { process?: RuntimeProcess }).process?.versions;
	if (typeof versions?.node !== "string") return undefined;
	return versions.bun === undefined && versions.deno === undefined ? versions.node : undefined;
}

function parts(version: string): number[] {
	return version
		.replace(/^v/, "")
		.split(".")
		.map((part) => Number.parseInt(part, 10) || 0);
}

/** One sentence saying which Node.js is needed when `version` is older than MIN_NODE_VERSION, else undefined. */
export function nodeTooOld(version: string): string | undefined {
	const [major = 0, minor = 0, patch = 0] = parts(version);
	const [needMajor = 0, needMinor = 0, needPatch = 0] = parts(MIN_NODE_VERSION);
	const older = major !== needMajor ? major < needMajor : minor !== needMinor ? minor < needMinor : patch < needPatch;
	if (!older) return undefined;
	const current = version.replace(/^v/, "");
	return `merchant-gateway needs Node.js ${MIN_NODE_VERSION} or later, and this is Node.js ${current}.`;
}
