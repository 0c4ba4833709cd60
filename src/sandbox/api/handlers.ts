import type { EndpointDefinition, EndpointName } from "../../endpoints.js";
import { chargeCard } from "./card-charge.js";
import { openCheckout } from "./checkout.js";
import type { ApiHandler } from "./endpoint.js";
import { refundPayment } from "./refund.js";
import { queryRefund } from "./refund-query.js";
import { queryTransaction } from "./transaction-query.js";

/**
 * The sandbox's handler of every row of the endpoint table: a new row does not
 * compile until it has one here.
 */
export const ENDPOINT_HANDLERS = {
	checkout: openCheckout,
	card: chargeCard,
	transactionQuery: queryTransaction,
	refund: refundPayment,
	refundQuery: queryRefund,
} as const satisfies { readonly [N in EndpointName]: ApiHandler<EndpointDefinition<N>> };
