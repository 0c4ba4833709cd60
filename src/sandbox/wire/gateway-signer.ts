import type { EndpointDefinition } from "../../endpoints.js";
import type { LazyOutput } from "../../schemas/lazy.js";
import type { SignedStringForm } from "../../signing/canonical.js";
import { type PrivateKey, toPrivateKey } from "../../signing/keys.js";
import { type SealOptions, type SignVersion, sealMessage, sealWrapped } from "../../signing/seal.js";
import type { ApiResponse } from "./spec-responses.js";

/** The unsigned `status` and `message` around the signed `data` of a wrapped response. */
export interface Wrapper {
	status: string;
	message: string | null;
}

/** A wrapped endpoint's response needs its wrapper; a flat one has none. */
export type WrapperOf<D extends EndpointDefinition> = D["envelope"] extends "wrapped" ? [wrapper: Wrapper] : [];

/**
 * The gateway's signing: its key, and the 2.0 signed-string form it uses (the reference form unless set).
 * Success responses are signed in the account's signing version (D4, D6); error responses are not signed.
 */
export class GatewaySigner {
	readonly #key: PrivateKey;
	readonly signedString: SignedStringForm | undefined;

	constructor(privateKey: string, signedString: SignedStringForm | undefined) {
		this.#key = toPrivateKey(privateKey);
		this.signedString = signedString;
	}

	/** Seal options for a message in `signVersion`. */
	sealOptions(signVersion: SignVersion): SealOptions {
		return { privateKey: this.#key, signVersion, signedString: this.signedString };
	}

	/** An endpoint's success response (HTTP 200), sealed in the envelope the endpoint table gives it. */
	successResponse<D extends EndpointDefinition>(
		endpoint: D,
		data: LazyOutput<D["response"]>,
		signVersion: SignVersion,
		...[wrapper]: WrapperOf<D>
	): ApiResponse {
		const fields: Record<string, unknown> = { ...data };
		const flat = endpoint.envelope === "flat" || wrapper === undefined;
		const json = flat
			? this.flat(fields, signVersion)
			: this.wrapped(wrapper.status, wrapper.message, fields, signVersion);
		return { status: 200, json };
	}

	/** A flat message: a checkout creation or transaction query response, or an IPN body. */
	flat(fields: Record<string, unknown>, signVersion: SignVersion): Record<string, unknown> {
		return { ...sealMessage(fields, this.sealOptions(signVersion)) };
	}

	/** A wrapped response (S2S charge, refund creation, refund query): status, message, signed data. */
	wrapped(
		status: string,
		message: string | null,
		data: Record<string, unknown>,
		signVersion: SignVersion,
	): Record<string, unknown> {
		return { ...sealWrapped(status, message, data, this.sealOptions(signVersion)) };
	}
}
