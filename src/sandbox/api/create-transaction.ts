import type { NewTransaction } from "../books/ledger-types.js";
import type { MerchantAccount } from "../books/merchants.js";
import type { SessionRequest } from "../books/records.js";

/** The validated fields both creation endpoints (checkout, S2S card) share. */
interface CreationParams extends Omit<SessionRequest, "paymentMethod" | "feeBySeller"> {
	orderRef: string;
	currency: string;
	amount: number;
	feeBySeller?: number | undefined;
	websiteUrl?: string | undefined;
}

/**
 * The transaction a creation request asks for. `feeBySeller` falls back to the
 * account's share when the request omits it, as the gateway does; the site whose
 * domain must be allowed is websiteUrl, or callbackUrl without one.
 */
export function newTransaction(
	params: CreationParams,
	merchant: MerchantAccount,
	paymentMethod: string,
	expiresAt?: Date,
): NewTransaction {
	const request: SessionRequest = {
		orderDescription: params.orderDescription,
		paymentMethod,
		callbackUrl: params.callbackUrl,
		notificationUrl: params.notificationUrl,
		cancelUrl: params.cancelUrl,
		errorUrl: params.errorUrl,
		feeBySeller: params.feeBySeller ?? merchant.feeBySeller,
		metadata: params.metadata,
		transactionDocuments: params.transactionDocuments,
		brandName: params.brandName,
		colorMode: params.colorMode,
		logoSource: params.logoSource,
	};
	const site = params.websiteUrl
		? { field: "websiteUrl" as const, url: params.websiteUrl }
		: { field: "callbackUrl" as const, url: params.callbackUrl };
	return {
		merchant,
		orderRef: params.orderRef,
		currency: params.currency,
		amount: params.amount,
		expiresAt,
		request,
		site,
	};
}
