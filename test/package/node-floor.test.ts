import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MIN_NODE_VERSION, nodeTooOld } from "../../src/internal/node-floor.js";
import { buildPackage, root } from "../support/build.js";

// An old Node.js is simulated by preloading fake-old-node.cjs into the current one; where the machine's own
// Node.js is old (Debian's /usr/bin/node is Node 20 here), the same checks also run on it for real.
const preload = fileURLToPath(new URL("./fake-old-node.cjs", import.meta.url));
const devCheck = createRequire(import.meta.url)("../../scripts/require-node.cjs") as {
	supports(version: string): boolean;
	problem(version: string): string | undefined;
};
const SYSTEM_NODE = "/usr/bin/node";
const systemNodeVersion = existsSync(SYSTEM_NODE)
	? spawnSync(SYSTEM_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
	: "";
const oldSystemNode = systemNodeVersion !== "" && nodeTooOld(systemNodeVersion) !== undefined;

function run(command: string, args: string[], env: Record<string, string> = {}) {
	const result = spawnSync(command, args, {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, ...env },
		timeout: 120_000,
	});
	// npm's own notices about the machine's npm configuration are not the answer under test.
	const stderr = result.stderr
		.split("\n")
		.filter((line) => line !== "" && !line.startsWith("npm warn"))
		.join("\n");
	return { status: result.status, stdout: result.stdout, stderr };
}

const asOldNode = (version: string, extra: Record<string, string> = {}) => ({
	NODE_OPTIONS: `--require=${preload}`,
	FAKE_NODE_VERSION: version,
	...extra,
});

const DEV_SENTENCE = (version: string) =>
	new RegExp(
		"^merchant-gateway's tests, demo and examples need Node\\.js 22\\.18 or later [^\\n]*, " +
			`and this is Node\\.js ${version.replaceAll(".", "\\.")}\\.$`,
	);
const SDK_SENTENCE = (version: string) =>
	`merchant-gateway needs Node.js ${MIN_NODE_VERSION} or later, and this is Node.js ${version}.`;

describe("the package's Node.js floor", () => {
	test("package.json engines names the floor the SDK checks (process.getBuiltinModule arrived in 22.3.0)", () => {
		const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } };
		expect(MIN_NODE_VERSION).toBe("22.3.0");
		expect(manifest.engines.node).toBe(`>=${MIN_NODE_VERSION}`);
	});

	test("nodeTooOld says which Node.js is needed, in one sentence, for every version below the floor", () => {
		for (const old of ["20.20.2", "v21.7.3", "22.0.0", "22.2.9"])
			expect(nodeTooOld(old)).toBe(SDK_SENTENCE(old.replace(/^v/, "")));
		for (const fine of ["22.3.0", "22.18.0", "23.0.0", "24.21.0", "v26.1.0"]) expect(nodeTooOld(fine)).toBeUndefined();
	});

	describe("the built package on a Node.js without process.getBuiltinModule", () => {
		let build: Awaited<ReturnType<typeof buildPackage>>;
		beforeAll(async () => {
			build = await buildPackage();
		});
		afterAll(() => build?.cleanup());

		test("signing and generateKeyPair() name the Node.js they need; nothing falls back to node-forge", () => {
			const script = `
				const sdk = await import(${JSON.stringify(pathToFileURL(join(build.dir, "signing", "index.js")).href)});
				const outcome = async (work) => {
					try {
						await work();
						return "succeeded";
					} catch (error) {
						return error.name + ": " + error.message;
					}
				};
				console.log(JSON.stringify({
					generateKeyPair: await outcome(() => sdk.generateKeyPair()),
					loadPrivateKey: await outcome(() => sdk.loadPrivateKey(process.env.KEY)),
					useCryptoBackend: await outcome(() => sdk.useCryptoBackend()),
				}));
			`;
			const key = readFileSync(join(root, "test/vectors/keys/merchant-private.pem"), "utf8");
			const env = asOldNode("22.2.0", { FAKE_NO_GET_BUILTIN_MODULE: "1", KEY: key });
			const result = run(process.execPath, ["--input-type=module", "-e", script], env);
			expect(result.stderr).toBe("");
			const refusal = `CryptoBackendError: ${SDK_SENTENCE("22.2.0")}`;
			expect(JSON.parse(result.stdout)).toEqual({
				generateKeyPair: refusal,
				loadPrivateKey: refusal,
				useCryptoBackend: refusal,
			});
		});

		test("the CLI says which Node.js it needs, in one sentence, before doing anything", () => {
			const cli = join(build.dir, "cli.js");
			const result = run(process.execPath, [cli, "keygen", "--help"], asOldNode("20.20.2"));
			expect(result).toEqual({ status: 1, stdout: "", stderr: SDK_SENTENCE("20.20.2") });
			expect(run(process.execPath, [cli, "--help"]).status).toBe(0);
		});

		test.skipIf(!oldSystemNode)(`the CLI on the machine's own Node.js ${systemNodeVersion}`, () => {
			const result = run(SYSTEM_NODE, [join(build.dir, "cli.js"), "--help"]);
			expect(result).toEqual({ status: 1, stdout: "", stderr: SDK_SENTENCE(systemNodeVersion) });
		});
	});
});

describe("the development scripts' Node.js floor", () => {
	test("the check accepts the lines the tools support (tsup: ^22.18 || ^24.11 || >=26) and refuses the rest", () => {
		for (const fine of ["22.18.0", "22.23.3", "24.11.0", "24.21.0", "26.0.0", "27.1.0"])
			expect(devCheck.supports(fine)).toBe(true);
		for (const old of ["18.20.0", "20.20.2", "22.3.0", "22.17.1", "23.11.0", "24.10.0", "25.2.1"]) {
			expect(devCheck.problem(old)).toMatch(DEV_SENTENCE(old));
		}
	});

	test("npm test starts with the check", () => {
		const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
			scripts: Record<string, string>;
		};
		// Not run through npm here: on a regression that would start the whole suite again from inside itself.
		const [first] = (manifest.scripts.test ?? "").split(" && ");
		expect(first).toBe("node scripts/require-node.cjs");
		const result = run(process.execPath, [join(root, "scripts/require-node.cjs")], asOldNode("20.20.2"));
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(DEV_SENTENCE("20.20.2"));
		expect(run(process.execPath, [join(root, "scripts/require-node.cjs")])).toEqual({
			status: 0,
			stdout: "",
			stderr: "",
		});
	});

	test.each([
		["npm run demo", ["run", "demo"]],
		["npm run example examples/ipn-express.ts", ["run", "example", "examples/ipn-express.ts"]],
	])("%s on Node.js 20 stops at once with one sentence", (_name, args) => {
		const result = run("npm", args, asOldNode("20.20.2"));
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(DEV_SENTENCE("20.20.2"));
	});

	test.skipIf(!oldSystemNode)(`the check on the machine's own Node.js ${systemNodeVersion}`, () => {
		const result = run(SYSTEM_NODE, [join(root, "scripts/require-node.cjs")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(DEV_SENTENCE(systemNodeVersion));
	});
});
