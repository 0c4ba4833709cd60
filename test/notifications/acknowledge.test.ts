import { describe, expect, it } from "vitest";
import { acknowledge, acknowledgeFailure, RequestValidationError } from "../../src/index.js";

describe("acknowledge", () => {
	it("is returnCode 100, with the description when given", () => {
		expect(acknowledge()).toEqual({ returnCode: "100" });
		expect(JSON.stringify(acknowledge("Stored"))).toBe('{"returnCode":"100","description":"Stored"}');
	});

	it("truncates a description to 1500 characters without splitting a surrogate pair", () => {
		expect(acknowledge("x ".repeat(800)).description).toHaveLength(1500);
		expect(acknowledge("x ".repeat(750)).description).toHaveLength(1500);
		const emoji = `${"x ".repeat(749)}x😀tail`;
		const cut = acknowledge(emoji).description as string;
		expect(cut).toBe(`${"x ".repeat(749)}x`);
		expect(/[\uD800-\uDBFF]$/.test(cut)).toBe(false);
	});

	it("masks card numbers in a description", () => {
		expect(acknowledge("card 4111111111111111 stored").description).toBe("card 411111******1111 stored");
	});

	it("refuses a description that is not a string", () => {
		expect(() => acknowledge(42 as unknown as string)).toThrow(RequestValidationError);
	});
});

describe("acknowledgeFailure", () => {
	it("uses a returnCode other than 100", () => {
		expect(acknowledgeFailure()).toEqual({ returnCode: "500" });
		expect(acknowledgeFailure("Database down", "503")).toEqual({ returnCode: "503", description: "Database down" });
	});

	it('refuses "100" and empty codes', () => {
		expect(() => acknowledgeFailure("x", "100")).toThrow(RequestValidationError);
		expect(() => acknowledgeFailure("x", "")).toThrow(RequestValidationError);
	});
});
