import { expect, test } from "vitest";
import { ENDPOINTS, type EndpointDefinition, type EndpointName } from "../../src/endpoints.js";
import { chargeCard } from "../../src/sandbox/api/card-charge.js";
import { openCheckout } from "../../src/sandbox/api/checkout.js";
import type { ApiHandler } from "../../src/sandbox/api/endpoint.js";
import { ENDPOINT_HANDLERS } from "../../src/sandbox/api/handlers.js";
import { queryRefund } from "../../src/sandbox/api/refund-query.js";
import { queryTransaction } from "../../src/sandbox/api/transaction-query.js";

/** What the sandbox's handler table must be: a handler of its own row for every row of the endpoint table. */
type EveryRowHandled = { readonly [N in EndpointName]: ApiHandler<EndpointDefinition<N>> };

test("the sandbox serves every row of the endpoint table with that row's handler", () => {
	for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
		expect(ENDPOINT_HANDLERS[name].endpoint).toBe(ENDPOINTS[name]);
	}
	expect(Object.keys(ENDPOINT_HANDLERS).sort()).toEqual(Object.keys(ENDPOINTS).sort());
});

test("the compiler refuses a handler table with a row missing or served by another row's handler", () => {
	// These lines are checked by `tsc --noEmit` (npm test): each must fail to compile.
	// @ts-expect-error refundQuery has no handler
	const missing: EveryRowHandled = { checkout: openCheckout, card: chargeCard, transactionQuery: queryTransaction };
	// @ts-expect-error the card row served by the checkout handler
	const swapped: EveryRowHandled = { ...ENDPOINT_HANDLERS, card: openCheckout };
	const complete: EveryRowHandled = { ...ENDPOINT_HANDLERS, refundQuery: queryRefund };
	expect([missing, swapped, complete].map((table) => Object.keys(table).length)).toEqual([3, 5, 5]);
});
