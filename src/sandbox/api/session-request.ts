import type { SessionRequest } from "../state.js";

/** The validated fields both creation endpoints (checkout, S2S card) keep on a transaction. */
type SessionParams = Omit<SessionRequest, "paymentMethod" | "feeBySeller"> & { feeBySeller?: number | undefined };

/**
 * What a transaction remembers of its creation request. `feeBySeller` falls back
 * to the account's share when the request omits it, as the gateway does.
 */
export function sessionRequest(
	params: SessionParams,
	paymentMethod: string,
	accountFeeBySeller: number,
): SessionRequest {
	return {
		orderDescription: params.orderDescription,
		paymentMethod,
		callbackUrl: params.callbackUrl,
		notificationUrl: params.notificationUrl,
		cancelUrl: params.cancelUrl,
		errorUrl: params.errorUrl,
		feeBySeller: params.feeBySeller ?? accountFeeBySeller,
		metadata: params.metadata,
		transactionDocuments: params.transactionDocuments,
		brandName: params.brandName,
		colorMode: params.colorMode,
		logoSource: params.logoSource,
	};
}
