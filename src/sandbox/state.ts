import type { PublicKey } from "../signing/keys.js";
import type { SignVersion } from "../signing/seal.js";
import type { FeeBreakdown, FeeModel } from "./fees.js";
import type { SandboxProvider } from "./options.js";
import type { SandboxRefundStatus, SandboxTransactionStatus } from "./statuses.js";

/** A merchant account with its options resolved. */
export interface MerchantAccount {
	merchantId: string;
	publicKeys: PublicKey[];
	signVersion: SignVersion;
	refundApproval: "auto" | "manual";
	providers: Required<SandboxProvider>[];
	autoCascade: boolean;
	feeBySeller: number;
	fees: FeeModel;
	brandName: string;
	logoSource: string | undefined;
	allowedDomains: readonly string[] | undefined;
	descriptor: string;
}

/** What a provider did with one charge attempt (auto-cascade may make several). */
export interface ProviderAttempt {
	/** The provider's name. */
	provider: string;
	/** What the provider did with the charge. */
	outcome: "approved" | "declined";
	/** The provider's message, such as why it declined. */
	message: string | null;
}

/** The card as the sandbox keeps it: never the full number, never the security code. */
export interface StoredCard {
	name: string | null;
	firstSixDigits: string;
	lastFourDigits: string;
	expiryMonth: string;
	expiryYear: string;
	type: string;
}

/** The URLs and display settings given at creation. */
export interface SessionRequest {
	orderDescription: string;
	paymentMethod: string;
	callbackUrl: string;
	notificationUrl: string;
	cancelUrl: string;
	errorUrl: string;
	feeBySeller: number;
	metadata?: Record<string, unknown> | undefined;
	transactionDocuments?: readonly { type: string; url: string }[] | undefined;
	brandName?: string | undefined;
	colorMode?: string | undefined;
	logoSource?: string | undefined;
}

export interface TransactionRecord {
	merchantId: string;
	transactionId: string;
	transactionNumber: string;
	orderRef: string;
	currency: string;
	amountMinor: number;
	channel: "checkout" | "s2s";
	request: SessionRequest;
	status: SandboxTransactionStatus;
	/** What a `pending` transaction waits for: the buyer's 3-D Secure, or the provider's later answer. */
	pendingOn: "three_ds" | "provider" | undefined;
	message: string | null;
	createdAt: Date;
	/** When a provider first handled the charge (originalTransactionCreatedAt). */
	providerCreatedAt: Date | undefined;
	/** Checkout sessions only: the hosted page refuses payment after this. */
	expiresAt: Date | undefined;
	fees: FeeBreakdown | undefined;
	card: StoredCard | undefined;
	provider: Required<SandboxProvider> | undefined;
	attempts: ProviderAttempt[];
	/** Unguessable part of the hosted-page and 3DS links. */
	pageToken: string;
	refundIds: string[];
}

export interface RefundRecord {
	refundId: string;
	refundNumber: string;
	transactionId: string;
	amountMinor: number;
	reason: string | undefined;
	status: SandboxRefundStatus;
	message: string | null;
	createdAt: Date;
}
