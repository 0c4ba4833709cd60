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
		["127.100.200.1", true],
		["127.0.250.1", true],
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

describe("control access rules, one at a time", () => {
	const TOKEN = "right-token-0123456";
	const request = (headers: Record<string, string>, remoteAddress: string | undefined = "127.0.0.1") => ({
		remoteAddress,
		header: (name: string) => headers[name] ?? null,
	});
	const fine = { host: "127.0.0.1:4010", authorization: `Bearer ${TOKEN}` };

	test.each(["127.0.0.1.example.test", "x127.0.0.1", "127.0.0", "127.0.0.1234", "::ffff:", "::1x", "x::1"])(
		"a peer at %j is not this machine",
		(address) => {
			expect(isLoopbackAddress(address)).toBe(false);
		},
	);

	test("a peer that is not this machine gets a 403 naming its address, whatever it sends", () => {
		expect(refuseAccess(request(fine, "192.0.2.2"), TOKEN)).toEqual({
			status: 403,
			message: "The control API serves this machine only; this request came from 192.0.2.2.",
		});
		expect(refuseAccess({ ...request(fine), remoteAddress: undefined }, TOKEN)?.message).toMatch(
			/came from an unknown address\.$/,
		);
	});

	test.each([
		["forwarded", "for=198.51.100.7"],
		["x-forwarded-for", "198.51.100.7"],
		["forwarded", ""],
	])("a request relayed by a proxy (%s: %j) gets a 403, even from loopback with the right token", (name, value) => {
		expect(refuseAccess(request({ ...fine, [name]: value }), TOKEN)).toEqual({
			status: 403,
			message: "The control API serves this machine only; this request came through a proxy.",
		});
	});

	test("a request for another host says to address a loopback host", () => {
		expect(refuseAccess(request({ ...fine, host: "sandbox.example.test" }), TOKEN)).toEqual({
			status: 403,
			message:
				"The control API serves this machine only: address it to a loopback host, such as 127.0.0.1 or localhost.",
		});
	});

	test.each(["  localhost:4010  ", "[::1]", "127.0.0.1"])("Host %j (spaces, brackets, no port) is let in", (host) => {
		expect(refuseAccess(request({ ...fine, host }), TOKEN)).toBeUndefined();
	});

	test.each(["[::2]:4010", "[fe80::1]:4010"])("Host %j is refused", (host) => {
		expect(refuseAccess(request({ ...fine, host }), TOKEN)?.status).toBe(403);
	});

	test("a request with no Host header is refused", () => {
		expect(refuseAccess(request({ authorization: `Bearer ${TOKEN}` }), TOKEN)?.status).toBe(403);
	});

	test("a request without a credential is told where the token is", () => {
		expect(refuseAccess(request({ host: "127.0.0.1" }), TOKEN)).toEqual({
			status: 401,
			message:
				"The control API needs its credential: send Authorization: Bearer <token>, the token in " +
				"the control-token file in the sandbox's state directory.",
		});
	});

	test("a wrong token of the same length gets a 401 saying which token to use", () => {
		const sameLength = `${TOKEN.slice(0, -1)}7`;
		expect(sameLength).toHaveLength(TOKEN.length);
		expect(refuseAccess(request({ ...fine, authorization: `Bearer ${sameLength}` }), TOKEN)).toEqual({
			status: 401,
			message:
				"The control credential is wrong: use the token in the control-token file in the sandbox's state directory.",
		});
	});

	test.each([`bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer \t ${TOKEN}`, `Bearer ${TOKEN}  `])(
		"Authorization %j carries the token (scheme in any case, any blank between, trailing blanks)",
		(authorization) => {
			expect(refuseAccess(request({ ...fine, authorization }), TOKEN)).toBeUndefined();
		},
	);

	test.each([
		`xBearer ${TOKEN}`,
		`Bearer${TOKEN}`,
		`Bearer ${TOKEN}x`,
		`Bearer ${TOKEN.slice(1)}`,
		`Bearer  ${TOKEN} x`,
	])("Authorization %j is a wrong or malformed credential", (authorization) => {
		expect(refuseAccess(request({ ...fine, authorization }), TOKEN)?.status).toBe(401);
	});
});
