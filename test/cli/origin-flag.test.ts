import { describe, expect, test } from "vitest";
import { originFlag } from "../../src/cli/flags.js";
import { CliError } from "../../src/cli/io.js";

// --sandbox-url and --public-url take an origin only: links and requests are resolved against it.
const refusal = (value: string, what?: string) => {
	try {
		originFlag("--public-url", value, "https://sandbox.example.test", what);
	} catch (error) {
		expect(error).toBeInstanceOf(CliError);
		// The usage hint every usage error ends with is not part of the rule.
		return (error as Error).message.replace(/ \(see --help\)$/, "");
	}
	throw new Error(`${value} was accepted`);
};

describe("an origin flag", () => {
	test("an http or https origin is taken as its origin, without the slash", () => {
		expect(originFlag("--public-url", "https://sandbox.example.test/", "x")).toBe("https://sandbox.example.test");
		expect(originFlag("--sandbox-url", "http://127.0.0.1:8080", "x")).toBe("http://127.0.0.1:8080");
	});

	test("what is not an absolute URL is refused with the flag and an example", () => {
		expect(refusal("sandbox.example.test")).toBe(
			"--public-url must be an absolute URL such as https://sandbox.example.test",
		);
	});

	test("a scheme other than http(s) is refused", () => {
		expect(refusal("ftp://sandbox.example.test")).toBe("--public-url must be an http(s) URL");
	});

	test.each([
		"https://sandbox.example.test/base",
		"https://sandbox.example.test/?a=1",
		"https://sandbox.example.test/#top",
		"https://user@sandbox.example.test/",
		"https://:secret@sandbox.example.test/",
	])("%s is refused: an origin only", (value) => {
		expect(refusal(value)).toBe("--public-url must be an origin only, without a path, query, fragment or credentials");
		expect(refusal(value, "the sandbox's origin")).toBe(
			"--public-url must be the sandbox's origin, without a path, query, fragment or credentials",
		);
	});
});
