import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
	GatewayError,
	InvalidNotificationError,
	isGatewayError,
	SignatureVerificationError,
	TimeoutError,
} from "../../src/index.js";
import { HttpRuleError } from "../../src/notifications/http/http-rules.js";
import { buildPackage } from "../support/build.js";

describe("instanceof in one build", () => {
	class Mine extends GatewayError {}
	class MyInvalid extends InvalidNotificationError {}

	test("an SDK error is not an instance of a user's subclass; the user's own errors are", () => {
		const sdk = new TimeoutError("t");
		expect(sdk instanceof Mine).toBe(false);
		expect(new GatewayError("g") instanceof Mine).toBe(false);
		const mine = new Mine("m");
		expect(mine instanceof Mine).toBe(true);
		expect(mine instanceof GatewayError).toBe(true);
		expect(mine instanceof Error).toBe(true);
		expect(mine instanceof TimeoutError).toBe(false);
	});

	test("a class never matches instances of its parent (SDK and user subclasses of InvalidNotificationError)", () => {
		const invalid = new InvalidNotificationError("bad", "field");
		expect(invalid instanceof HttpRuleError).toBe(false);
		expect(invalid instanceof MyInvalid).toBe(false);
		const rule = new HttpRuleError(413, "too large", "body");
		expect(rule instanceof HttpRuleError).toBe(true);
		expect(rule instanceof InvalidNotificationError).toBe(true);
		expect(rule instanceof GatewayError).toBe(true);
		expect(rule instanceof SignatureVerificationError).toBe(false);
		const myInvalid = new MyInvalid("x");
		expect(myInvalid instanceof MyInvalid).toBe(true);
		expect(myInvalid instanceof InvalidNotificationError).toBe(true);
		expect(myInvalid instanceof HttpRuleError).toBe(false);
	});

	test("siblings and parents stay apart", () => {
		const signature = new SignatureVerificationError("mismatch", "m");
		expect(signature instanceof SignatureVerificationError).toBe(true);
		expect(signature instanceof GatewayError).toBe(true);
		expect(signature instanceof TimeoutError).toBe(false);
		expect(new GatewayError("g") instanceof SignatureVerificationError).toBe(false);
		expect({} instanceof GatewayError).toBe(false);
		expect(new Error("e") instanceof GatewayError).toBe(false);
	});

	test("isGatewayError narrows SDK errors and subclasses, nothing else", () => {
		const caught: unknown = new SignatureVerificationError("mismatch", "m");
		expect(isGatewayError(caught)).toBe(true);
		if (isGatewayError(caught)) expect(caught.status).toBeUndefined();
		expect(isGatewayError(new Mine("m"))).toBe(true);
		for (const other of [new Error("e"), { name: "GatewayError" }, null, undefined, "GatewayError"]) {
			expect(isGatewayError(other)).toBe(false);
		}
	});
});

describe("instanceof across the built ESM and CJS packages", () => {
	let build: Awaited<ReturnType<typeof buildPackage>>;
	beforeAll(async () => {
		build = await buildPackage();
	});
	afterAll(() => build?.cleanup());

	test("each class recognises its own errors from the other build, exactly; user subclasses stay ordinary", () => {
		// A plain Node process (no test runner in between) loads both builds, as an app mixing import and require.
		const script = `
			import { createRequire } from "node:module";
			const esm = await import(${JSON.stringify(pathToFileURL(join(build.dir, "index.js")).href)});
			const cjs = createRequire(import.meta.url)(${JSON.stringify(join(build.dir, "index.cjs"))});
			const out = {};
			for (const [from, to, name] of [[esm, cjs, "esm->cjs"], [cjs, esm, "cjs->esm"]]) {
				class Mine extends to.GatewayError {}
				class MyInvalid extends to.InvalidNotificationError {}
				const invalid = new from.InvalidNotificationError("x");
				const timeout = new from.TimeoutError("t");
				out[name] = {
					sameClass: esm.GatewayError !== cjs.GatewayError,
					timeoutIsTimeout: timeout instanceof to.TimeoutError,
					timeoutIsGatewayError: timeout instanceof to.GatewayError,
					timeoutIsSignature: timeout instanceof to.SignatureVerificationError,
					invalidIsInvalid: invalid instanceof to.InvalidNotificationError,
					invalidIsMine: invalid instanceof Mine,
					invalidIsMyInvalid: invalid instanceof MyInvalid,
					baseIsInvalid: new from.GatewayError("g") instanceof to.InvalidNotificationError,
					mineIsMine: new Mine("m") instanceof Mine,
					mineIsGatewayErrorOfOther: new Mine("m") instanceof from.GatewayError,
					myInvalidIsInvalidOfOther: new MyInvalid("m") instanceof from.InvalidNotificationError,
					myInvalidIsTimeoutOfOther: new MyInvalid("m") instanceof from.TimeoutError,
					guardTimeout: to.isGatewayError(timeout),
					guardMine: from.isGatewayError(new Mine("m")),
					guardPlainError: to.isGatewayError(new Error("e")),
					guardLookalike: to.isGatewayError({ name: "GatewayError", message: "m", status: 500 }),
				};
			}
			console.log(JSON.stringify(out));
		`;
		const args = ["--input-type=module", "-e", script];
		const output = execFileSync(process.execPath, args, { cwd: build.dir, encoding: "utf8" });
		const expected = {
			sameClass: true,
			timeoutIsTimeout: true,
			timeoutIsGatewayError: true,
			timeoutIsSignature: false,
			invalidIsInvalid: true,
			invalidIsMine: false,
			invalidIsMyInvalid: false,
			baseIsInvalid: false,
			mineIsMine: true,
			mineIsGatewayErrorOfOther: true,
			myInvalidIsInvalidOfOther: true,
			myInvalidIsTimeoutOfOther: false,
			guardTimeout: true,
			guardMine: true,
			guardPlainError: false,
			guardLookalike: false,
		};
		expect(JSON.parse(output)).toEqual({ "esm->cjs": expected, "cjs->esm": expected });
	});
});
