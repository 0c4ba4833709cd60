export type { CardResource } from "./card.js";
export type { CheckoutResource } from "./checkout.js";
export type { DirectPostForm, DirectPostOptions } from "./direct-post.js";
export type { CallbacksResource, NotificationsResource, ResolvedCallback } from "./notifications.js";
export type { RefundsResource } from "./refunds.js";
export type { TransactionsResource } from "./transactions.js";
