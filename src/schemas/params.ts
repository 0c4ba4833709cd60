import type {
	CardChargeShape,
	CheckoutShape,
	FILLED_BY_CLIENT,
	FORCED_ON_CARD,
	OrderShape,
	ParamsOfShape,
	RefundShape,
} from "./request-shapes.js";

/**
 * Fields checkout and S2S share, with the same rules.
 * @interface
 */
export type OrderParams = ParamsOfShape<OrderShape, typeof FILLED_BY_CLIENT>;
/** A supporting document: its kind (such as `invoice`) and its absolute http(s) URL. */
export type TransactionDocumentParam = NonNullable<OrderParams["transactionDocuments"]>[number];
/**
 * `checkout.create` and `checkout.directPost` parameters (POST /v2/checkout).
 * @interface
 */
export type CheckoutParams = ParamsOfShape<CheckoutShape, typeof FILLED_BY_CLIENT>;
/**
 * `card.charge` parameters (POST /v2/card/api); `paymentMethod` and `connectionMode` are forced (card, API).
 * @interface
 */
export type CardChargeParams = ParamsOfShape<CardChargeShape, typeof FORCED_ON_CARD>;
/**
 * `refunds.create` parameters (POST /v2/refund).
 * @interface
 */
export type RefundParams = ParamsOfShape<RefundShape, typeof FILLED_BY_CLIENT>;
