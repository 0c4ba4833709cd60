import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileAcceptor } from "../../src/schemas/fast-path.js";
import { callbackResultSchema, refundSchema, transactionSchema } from "../../src/schemas/resources.js";
import { vector } from "../helpers/vectors.js";

// The acceptor may only say yes where zod says yes AND returns an equal copy:
// then the value itself stands in for zod's output. Everything else goes to zod.

const transaction = () => structuredClone(vector("transaction-ipn-2.0").opened) as Record<string, unknown>;
const refund = () => structuredClone(vector("refund-ipn-2.0").opened) as Record<string, unknown>;

describe("compileAcceptor", () => {
	it("compiles the resource schemas the IPN and query paths parse", () => {
		for (const lazy of [transactionSchema, refundSchema, callbackResultSchema]) expect(compileAcceptor(lazy.get())).toBeTypeOf("function");
	});

	it("leaves to zod every construct it does not know, rather than approximating it", () => {
		const unsupported = [
			z.string().regex(/^a$/),
			z.string().email(),
			z.number().int(),
			z.number().min(1),
			z.object({ a: z.string() }).refine(() => true),
			z.object({ a: z.string().transform((s) => s.trim()) }),
			z.looseObject({ a: z.string() }),
			z.strictObject({ a: z.string() }),
			z.object({ a: z.string().default("x") }),
			z.object({ nested: z.object({ b: z.enum(["x"]) }) }),
			z.array(z.string()).min(1),
			z.record(z.string().min(2), z.unknown()),
			z.union([z.string(), z.number()]),
		];
		for (const schema of unsupported) expect(compileAcceptor(schema)).toBeUndefined();
	});

	it("accepts a valid IPN as is, and lazySchema returns that same object", () => {
		const accept = compileAcceptor(transactionSchema.get());
		const value = transaction();
		expect(accept?.(value)).toBe(true);
		expect(transactionSchema.safeParse(value).data).toBe(value);
		const refundValue = refund();
		expect(refundSchema.parse(refundValue)).toBe(refundValue);
	});

	it("says no to a key zod would strip, so zod's stripped copy is returned", () => {
		const value = { ...transaction(), extra: 1 };
		expect(compileAcceptor(transactionSchema.get())?.(value)).toBe(false);
		const parsed = transactionSchema.safeParse(value);
		expect(parsed.success).toBe(true);
		expect(parsed.data).not.toBe(value);
		expect(parsed.data).not.toHaveProperty("extra");
	});

	it("says no to each kind of invalid field", () => {
		const accept = compileAcceptor(transactionSchema.get()) as (value: unknown) => boolean;
		const cases: [string, unknown][] = [
			["transactionId", ""],
			["transactionId", 7],
			["amount", "10.50"],
			["amount", Number.NaN],
			["amount", Number.POSITIVE_INFINITY],
			["ref", null],
			["ref", undefined],
			["metadata", []],
			["metadata", "x"],
			["fees", { buyer: "1" }],
			["paymentMethodDetails", { card: { name: 5 } }],
			["transactionDocuments", [{ type: "invoice" }]],
			["transactionDocuments", {}],
		];
		for (const [field, bad] of cases) {
			const value = { ...transaction(), [field]: bad };
			expect(accept(value), field).toBe(false);
			expect(transactionSchema.safeParse(value).success, field).toBe(false);
		}
		expect(accept(null)).toBe(false);
		expect(accept([])).toBe(false);
		expect(accept(new (class Transaction {})())).toBe(false);
	});

	it("leaves a __proto__ key of a record to zod", () => {
		const value = { ...transaction(), metadata: JSON.parse('{"__proto__": {"polluted": true}}') };
		expect(compileAcceptor(transactionSchema.get())?.(value)).toBe(false);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("accepts absent optional fields and null nullable ones", () => {
		const value = transaction();
		delete value.fees;
		delete value.paymentMethodDetails;
		value.metadata = null;
		value.transactionDocuments = null;
		expect(transactionSchema.safeParse(value).data).toBe(value);
		const missing = transaction();
		delete missing.statusCode;
		expect(compileAcceptor(transactionSchema.get())?.(missing)).toBe(false);
		expect(transactionSchema.safeParse(missing).success).toBe(false);
	});

	// The property behind it all, over random values near the valid ones.
	const anyJson = fc.oneof(
		fc.jsonValue(),
		fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, "", [], {}, [undefined]),
		fc.dictionary(fc.constantFrom("type", "url", "card", "name", "buyer", "__proto__", "x"), fc.jsonValue()),
	);
	const nearValid = (base: () => Record<string, unknown>) =>
		fc
			.tuple(fc.array(fc.tuple(fc.constantFrom(...Object.keys(base()), "extra", "__proto__"), anyJson), { maxLength: 3 }), fc.boolean())
			.map(([changes, deleteOne]) => {
				const value = base();
				for (const [key, replacement] of changes)
					Object.defineProperty(value, key, { value: replacement, enumerable: true, writable: true, configurable: true });
				if (deleteOne) delete value[Object.keys(value)[0] as string];
				return value;
			});

	for (const [name, lazy, base] of [
		["transaction", transactionSchema, transaction],
		["refund", refundSchema, refund],
	] as const) {
		it(`never accepts a ${name} that zod refuses or would change`, () => {
			const accept = compileAcceptor(lazy.get()) as (value: unknown) => boolean;
			let accepted = 0;
			fc.assert(
				fc.property(nearValid(base), (value) => {
					const byZod = lazy.get().safeParse(value);
					if (accept(value)) {
						accepted++;
						expect(byZod.success).toBe(true);
						expect(byZod.data).toStrictEqual({ ...value });
					}
				}),
				{ numRuns: 2000 },
			);
			// The property must have had something to check.
			expect(accepted).toBeGreaterThan(50);
		});
	}
});
