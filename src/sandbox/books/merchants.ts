import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { finiteNumber, parseOptions } from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import { toPublicKeys } from "../../signing/keys.js";
import { feeOptionsSchema, toFeeModel } from "./fees.js";
import { DEFAULT_PROVIDERS, type SandboxMerchantOptions, type SandboxProvider } from "./merchant-options.js";

/** A merchant account with its options resolved. */
export type MerchantAccount = Readonly<ReturnType<typeof merchantAccount>>;

const SUBJECT = "sandbox merchant";
const ID_RULE = "must be 1 to 50 characters";

/** The rules and defaults of a merchant's options (its keys are checked where they are loaded). */
const merchantOptions = lazySchema(() =>
	z.object({
		merchantId: z.string({ error: ID_RULE }).check(z.refine((id) => id.length >= 1 && id.length <= 50, ID_RULE)),
		providers: z.optional(
			z
				.array(
					z.custom<SandboxProvider>((provider) => typeof provider === "object" && provider !== null),
					{
						error: "must be a list of providers",
					},
				)
				.check(z.minLength(1, "must name at least one provider")),
		),
		feeBySeller: z._default(finiteNumber(0, 100, "must be from 0 to 100"), 100),
		fees: z.prefault(feeOptionsSchema(), {}),
	}),
);

/**
 * The merchant accounts a sandbox knows: registered with their options checked, looked up by id.
 * Accounts restored from a saved state may be registered again once, with new options, which replace them.
 */
export class MerchantRegistry {
	readonly #accounts = new Map<string, MerchantAccount>();
	readonly #restored = new Set<string>();
	#onAdd: ((options: SandboxMerchantOptions) => void) | undefined;

	/** Registers an account. @throws ConfigurationError naming the option and its rule. */
	add(options: SandboxMerchantOptions): MerchantAccount {
		const id = options.merchantId;
		if (this.#accounts.has(id) && !this.#restored.has(id)) {
			throw new ConfigurationError([{ field: "merchantId", message: `${id} is already registered` }], SUBJECT);
		}
		const account = merchantAccount(options);
		this.#restored.delete(id);
		this.#accounts.set(id, account);
		this.#onAdd?.(options);
		return account;
	}

	/** Registers accounts saved earlier, without reporting them; each may be registered again once. */
	restore(saved: readonly SandboxMerchantOptions[]): void {
		for (const options of saved) {
			this.#accounts.set(options.merchantId, merchantAccount(options));
			this.#restored.add(options.merchantId);
		}
	}

	/** Calls `listener` with the options of every account registered from now on. */
	onAdd(listener: (options: SandboxMerchantOptions) => void): void {
		this.#onAdd = listener;
	}

	/** Every registered merchant id, in the order they were registered. */
	ids(): string[] {
		return [...this.#accounts.keys()];
	}

	/** The account registered under `merchantId`, if any. */
	get(merchantId: string): MerchantAccount | undefined {
		return this.#accounts.get(merchantId);
	}

	/** The account of a transaction's merchant (accounts are never removed). */
	of(record: { merchantId: string }): MerchantAccount {
		const merchant = this.#accounts.get(record.merchantId);
		if (!merchant) throw new Error(`merchant ${record.merchantId} vanished`);
		return merchant;
	}
}

/** An account's options checked and completed. @throws ConfigurationError naming the option and its rule. */
export function merchantAccount(options: SandboxMerchantOptions) {
	const checked = parseOptions(merchantOptions, options, SUBJECT);
	const providers = (checked.providers ?? DEFAULT_PROVIDERS).map((p) => ({
		name: p.name,
		kind: p.kind ?? "s2s",
		fullRefundOnly: p.fullRefundOnly ?? false,
	}));
	const brandName = options.brandName ?? "Sandbox Merchant";
	return {
		merchantId: checked.merchantId,
		publicKeys: toPublicKeys(options.publicKey),
		signVersion: options.signVersion ?? "2.0",
		refundApproval: options.refundApproval ?? "auto",
		providers,
		autoCascade: options.autoCascade ?? true,
		feeBySeller: checked.feeBySeller,
		fees: toFeeModel(checked.fees),
		brandName,
		logoSource: options.logoSource,
		allowedDomains: options.allowedDomains,
		descriptor: (options.descriptor ?? `SANDBOX*${brandName}`).slice(0, 22),
	};
}

/** True when the host of `url` is one of the merchant's allowed domains (or a subdomain of one). */
export function domainAllowed(merchant: MerchantAccount, url: string): boolean {
	if (!merchant.allowedDomains) return true;
	const host = new URL(url).hostname.toLowerCase();
	return merchant.allowedDomains.some((domain) => {
		const allowed = domain.toLowerCase();
		return host === allowed || host.endsWith(`.${allowed}`);
	});
}
