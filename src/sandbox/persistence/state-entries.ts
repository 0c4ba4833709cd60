import * as z from "zod/mini";
import { parseJsonObject } from "../../internal/plain-object.js";
import { type PublicKeyLike, publicKeyText } from "../../signing/keys.js";
import type { ClockReading } from "../books/clock.js";
import type { SandboxMerchantOptions } from "../books/merchant-options.js";
import { merchantAccount } from "../books/merchants.js";
import {
	type RefundRecord,
	type RefundState,
	refundSchema,
	type TransactionRecord,
	type TransactionState,
	transactionSchema,
} from "../books/records.js";
import { type DeliveryAttempt, type DeliveryState, deliverySchema } from "../wire/notifier.js";

/**
 * One line of a saved state: the whole of one record as it stands after a change. Every entry
 * replaces the record of the same key, so a state is the entries applied in order, and applying
 * them twice changes nothing (a snapshot followed by the journal it was made from loads the same).
 */
export type StateEntry =
	| { merchant: SandboxMerchantOptions }
	| { transaction: TransactionRecord }
	| { refund: RefundRecord }
	| { delivery: Readonly<DeliveryState> }
	| { attempt: DeliveryAttempt }
	| { clock: ClockReading };

/** An entry read back: records the books and the notifier take over as their own. */
export type LoadedEntry =
	| { merchant: SandboxMerchantOptions }
	| { transaction: TransactionState }
	| { refund: RefundState }
	| { delivery: DeliveryState }
	| { attempt: DeliveryAttempt }
	| { clock: ClockReading };

/** A state as its entries leave it, each record under its key, in the order first seen. */
export interface SavedState {
	merchants: Map<string, SandboxMerchantOptions>;
	transactions: Map<string, TransactionState>;
	refunds: Map<string, RefundState>;
	deliveries: Map<string, DeliveryState>;
	attempts: Map<string, DeliveryAttempt>;
	/** Undefined until a sandbox saved its clock: a new state. */
	clock: ClockReading | undefined;
}

export function emptyState(): SavedState {
	return {
		merchants: new Map(),
		transactions: new Map(),
		refunds: new Map(),
		deliveries: new Map(),
		attempts: new Map(),
		clock: undefined,
	};
}

/** Applies one entry: its record replaces the one under the same key. */
export function applyEntry(state: SavedState, entry: LoadedEntry): void {
	if ("merchant" in entry) state.merchants.set(entry.merchant.merchantId, entry.merchant);
	else if ("transaction" in entry) state.transactions.set(entry.transaction.transactionId, entry.transaction);
	else if ("refund" in entry) state.refunds.set(entry.refund.refundId, entry.refund);
	else if ("delivery" in entry) state.deliveries.set(entry.delivery.deliveryId, entry.delivery);
	else if ("attempt" in entry) state.attempts.set(attemptKey(entry.attempt), entry.attempt);
	else state.clock = entry.clock;
}

const attemptKey = (attempt: DeliveryAttempt) => `${attempt.deliveryId}#${attempt.attempt}`;

/** The record an entry saves, as one key across kinds: a later entry with the same key replaces it. */
export function entryKey(entry: StateEntry | LoadedEntry): string {
	if ("merchant" in entry) return `merchant:${entry.merchant.merchantId}`;
	if ("transaction" in entry) return `transaction:${entry.transaction.transactionId}`;
	if ("refund" in entry) return `refund:${entry.refund.refundId}`;
	if ("delivery" in entry) return `delivery:${entry.delivery.deliveryId}`;
	if ("attempt" in entry) return `attempt:${attemptKey(entry.attempt)}`;
	return "clock";
}

/** Every entry that rebuilds `state`: what a snapshot holds. */
export function* stateEntries(state: SavedState): Generator<LoadedEntry> {
	for (const merchant of state.merchants.values()) yield { merchant };
	for (const transaction of state.transactions.values()) yield { transaction };
	for (const refund of state.refunds.values()) yield { refund };
	for (const delivery of state.deliveries.values()) yield { delivery };
	for (const attempt of state.attempts.values()) yield { attempt };
	if (state.clock) yield { clock: state.clock };
}

/** One entry as a line of JSON (dates as ISO 8601, merchant keys as text), newline included. */
export function encodeEntry(entry: StateEntry): string {
	if (!("merchant" in entry)) return `${JSON.stringify(entry)}\n`;
	const { publicKey } = entry.merchant;
	const keys = Array.isArray(publicKey)
		? (publicKey as readonly PublicKeyLike[]).map((key) => publicKeyText(key))
		: publicKeyText(publicKey as PublicKeyLike);
	return `${JSON.stringify({ merchant: { ...entry.merchant, publicKey: keys } })}\n`;
}

const text = z.string();
const optionalText = z.optional(text);
const epochMs = z.number().check(z.refine(Number.isFinite));

// Written by versions that kept a transaction's refund ids in it; a transaction's refunds are the
// refunds that name it, so the list is read and left aside.
const transaction = z.extend(transactionSchema, { refundIds: z.optional(z.array(text)) });

const attempt = z.object({
	deliveryId: text,
	attempt: z.int(),
	eventId: text,
	kind: z.enum(["transaction", "refund"]),
	url: text,
	duplicate: z.boolean(),
	startedAt: text,
	finishedAt: text,
	outcome: z.enum(["acknowledged", "rejected", "timeout", "network_error"]),
	httpStatus: z.optional(z.int()),
	returnCode: optionalText,
	detail: optionalText,
	responseExcerpt: optionalText,
	nextAttemptAt: optionalText,
});

const optionalNumber = z.optional(z.number());
const merchant = z.object({
	merchantId: text,
	publicKey: z.union([text, z.array(text)]),
	signVersion: z.optional(z.enum(["2.0", "2.1"])),
	refundApproval: z.optional(z.enum(["auto", "manual"])),
	providers: z.optional(
		z.array(
			z.object({ name: text, kind: z.optional(z.enum(["s2s", "hpp"])), fullRefundOnly: z.optional(z.boolean()) }),
		),
	),
	autoCascade: z.optional(z.boolean()),
	feeBySeller: optionalNumber,
	fees: z.optional(
		z.object({
			percent: optionalNumber,
			fixed: optionalNumber,
			rollingReservePercent: optionalNumber,
			operate: optionalNumber,
			settlementDelayDays: optionalNumber,
			rollingReleaseDays: optionalNumber,
		}),
	),
	brandName: optionalText,
	logoSource: optionalText,
	allowedDomains: z.optional(z.array(text)),
	descriptor: optionalText,
});

const clock = z.object({ frozenAt: z.optional(epochMs), offsetMs: epochMs });

const SCHEMAS = { merchant, transaction, refund: refundSchema, delivery: deliverySchema, attempt, clock } as const;
type Kind = keyof typeof SCHEMAS;

/**
 * Reads one line back into its entry.
 * @returns the entry, or why the line is not one (which field, which rule), never echoing its values.
 */
export function decodeEntry(line: string): { entry: LoadedEntry } | { problem: string } {
	const parsed = parseJsonObject(line);
	if (!parsed) return { problem: "it is not a JSON object" };
	const keys = Object.keys(parsed);
	const kind = keys[0] as Kind | undefined;
	if (keys.length !== 1 || kind === undefined || !Object.hasOwn(SCHEMAS, kind)) {
		return { problem: `it is not one of ${Object.keys(SCHEMAS).join(", ")}` };
	}
	const value = parsed[kind];
	const result = z.safeParse(SCHEMAS[kind] as z.ZodMiniType, value);
	if (!result.success) {
		const issue = result.error.issues[0];
		const where = [kind, ...(issue?.path ?? [])].join(".");
		const expected = issue && "expected" in issue ? `, expected ${String(issue.expected)}` : "";
		return { problem: `${where} is not valid (${issue?.code ?? "invalid"}${expected})` };
	}
	if (kind === "transaction") delete (result.data as { refundIds?: unknown }).refundIds;
	if (kind === "merchant") {
		try {
			merchantAccount(result.data as SandboxMerchantOptions);
		} catch (error) {
			return { problem: `merchant: ${(error as Error).message}` };
		}
	}
	// The schemas spell out each record's type; optional keys decode as absent rather than undefined.
	return { entry: { [kind]: result.data } as unknown as LoadedEntry };
}
