import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { shellWord } from "../../src/cli/commands/sandbox/banner.js";
import { isLoopbackAddress, refuseAccess } from "../../src/sandbox/control/access.js";
import { formatDuration, parseDuration } from "../../src/sandbox/control/duration.js";

describe("durations of sandbox clock advance", () => {
	test.each([
		["90s", 90_000],
		["30m", 1_800_000],
		["25h", 90_000_000],
		["2d", 172_800_000],
		["1h30m", 5_400_000],
		["500ms", 500],
		[" 0s ", 0],
	])("%s is %d ms", (text, ms) => {
		expect(parseDuration(text)).toBe(ms);
		expect(parseDuration(formatDuration(ms))).toBe(ms);
	});

	test.each(["", "30", "m", "1.5h", "-1h", "30 minutes", "1y", "3651d"])("%j is refused", (text) => {
		expect(parseDuration(text)).toBeUndefined();
	});
});

describe("who the control API lets in", () => {
	test.each([
		["127.0.0.1", true],
		["127.8.9.10", true],
		["::1", true],
		["::ffff:127.0.0.1", true],
		["192.0.2.2", false],
		["::ffff:192.0.2.2", false],
		["fe80::1", false],
		[undefined, false],
	])("a peer at %s: %s", (address, loopback) => {
		expect(isLoopbackAddress(address)).toBe(loopback);
	});

	const caller = (host: string, authorization = "Bearer right-token-0123456") => ({
		remoteAddress: "127.0.0.1",
		header: (name: string) => ({ host, authorization })[name] ?? null,
	});

	test.each(["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"])("Host %s is let in", (host) => {
		expect(refuseAccess(caller(host), "right-token-0123456")).toBeUndefined();
	});

	test.each(["sandbox.example.test", "192.0.2.2:8080", "localhost.example:80", ""])("Host %j is refused", (host) => {
		expect(refuseAccess(caller(host), "right-token-0123456")?.status).toBe(403);
	});

	test.each(["Bearer wrong", "Basic cmlnaHQ=", "Bearer", "bearer right-token-0123456 extra"])(
		"Authorization %j gets a 401",
		(authorization) => {
			expect(refuseAccess(caller("127.0.0.1", authorization), "right-token-0123456")?.status).toBe(401);
		},
	);
});

describe("banner arguments", () => {
	test.each(["/tmp/plain-dir", "/tmp/with space", "it's", "$HOME", "a;b", "*"])(
		"%j reads back unchanged in sh",
		(text) => {
			expect(execFileSync("sh", ["-c", `printf %s ${shellWord(text)}`]).toString()).toBe(text);
		},
	);
});
