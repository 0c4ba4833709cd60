import { describe, expectTypeOf, it } from "vitest";
import type { ConfirmResult, FailedEventStore } from "../../src/index.js";
import type { PostgresStore } from "../../src/stores/postgres.js";
import type { RedisStore } from "../../src/stores/redis.js";

// The shared stores restate the store contract's methods, each with its TSDoc for the API reference (a mapped type
// would give them signatures without it). Checked by tsc here: each is the contract's method answering a promise.

/** The contract's methods, each answering with a promise of the contract's answer. */
type Promised<Store> = {
	[Method in keyof Store]-?: Store[Method] extends ((...args: infer Args) => infer Answer) | undefined
		? (...args: Args) => Promise<Awaited<Answer>>
		: never;
};
type Contract = Omit<Promised<FailedEventStore>, "confirm"> & {
	/** A shared store always answers whether it confirmed. */
	confirm(eventId: string, token?: string): Promise<ConfirmResult>;
};

describe("the shared stores' methods", () => {
	it("are the store contract's, each answering with a promise", () => {
		expectTypeOf<Pick<RedisStore, keyof FailedEventStore>>().toEqualTypeOf<Pick<Contract, keyof FailedEventStore>>();
		expectTypeOf<Pick<PostgresStore, keyof FailedEventStore>>().toEqualTypeOf<Pick<Contract, keyof FailedEventStore>>();
	});
});
