const ERROR_KIND = Symbol.for("merchant-gateway.error-kind");

/** What every SDK error can tell about the HTTP exchange it came from. */
export interface GatewayErrorContext {
	/** HTTP status of the gateway's response, when there was one. */
	status?: number | undefined;
	/** Request path, such as `/v2/refund`, when the error belongs to a request. */
	path?: string | undefined;
	/** The underlying error. Redacted before it is attached. */
	cause?: unknown;
}

/**
 * Base class of every error the SDK throws.
 *
 * `instanceof` works across the ESM and CJS builds (a process may load both):
 * each SDK class is recognised by its own brand, the kind it registers under a
 * shared symbol, found anywhere in the value's prototype chain. So a subclass's
 * instance is also an instance of its SDK parents, but never the reverse. Your
 * own subclasses (`class Mine extends GatewayError {}`) register no kind and
 * keep the ordinary `instanceof`: only `new Mine()` is a `Mine`.
 */
export class GatewayError extends Error {
	/** @internal The name `instanceof` recognises across builds. */
	static readonly [ERROR_KIND]: string = "GatewayError";
	/** HTTP status of the gateway's response, when there was one. */
	readonly status: number | undefined;
	/** Request path, when the error belongs to a request. */
	readonly path: string | undefined;

	constructor(message: string, context: GatewayErrorContext = {}) {
		super(message, context.cause === undefined ? undefined : { cause: context.cause });
		this.status = context.status;
		this.path = context.path;
		Object.defineProperty(this, "name", {
			value: (new.target as unknown as Record<symbol, string>)[ERROR_KIND],
			enumerable: false,
			configurable: true,
			writable: true,
		});
	}

	/** `instanceof` that also recognises this class's errors thrown by the other build (ESM or CJS). */
	static override [Symbol.hasInstance](value: unknown): boolean {
		// A class without a kind of its own (a user's subclass, an internal one) is matched by identity, as usual.
		if (!Object.hasOwn(this, ERROR_KIND)) return Function.prototype[Symbol.hasInstance].call(this, value);
		if (typeof value !== "object" || value === null) return false;
		const wanted = (this as unknown as Record<symbol, string>)[ERROR_KIND];
		for (let proto = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
			const ctor = (proto as { constructor?: unknown }).constructor;
			if (
				typeof ctor === "function" &&
				Object.hasOwn(ctor, ERROR_KIND) &&
				(ctor as unknown as Record<symbol, string>)[ERROR_KIND] === wanted
			) {
				return true;
			}
		}
		return false;
	}
}

/**
 * Whether `value` is an error the SDK threw (or one of your subclasses of `GatewayError`). Like
 * `instanceof GatewayError`, it also recognises errors from the other build (ESM or CJS) when a
 * process loads both, and it narrows the type in a `catch` block.
 */
export function isGatewayError(value: unknown): value is GatewayError {
	return value instanceof GatewayError;
}

/** Registers the kind of an error subclass; used as `static readonly [errorKind] = "Name"`. */
export const errorKind: typeof ERROR_KIND = ERROR_KIND;
