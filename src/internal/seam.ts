/**
 * Where an instrumentation (the `merchant-gateway/opentelemetry` entry) subscribes to a lifecycle the SDK
 * observes: a client call, an IPN delivery, a replay, a reconciliation. Each lifecycle is one seam, defined
 * beside the code it observes; starting one calls the seam's subscriber synchronously, and with none it
 * costs one property read.
 *
 * A seam holds one subscriber, kept on `globalThis` under a registered symbol (as `@opentelemetry/api`
 * keeps its providers): an application that loads the package twice (its ESM and its CommonJS build, or two
 * bundles) still has one instrumentation for both copies.
 */
const SUBSCRIBERS = Symbol.for("merchant-gateway.instrumentation");

type Subscribers = Record<string, ((start: never) => unknown) | undefined>;

function subscribers(): Subscribers {
	const holder = globalThis as { [SUBSCRIBERS]?: Subscribers };
	holder[SUBSCRIBERS] ??= {};
	return holder[SUBSCRIBERS];
}

export class Seam<Start, Watch> {
	readonly #name: string;

	/** @param name the lifecycle's name, unique in the package (`client.call`, `ipn.delivery`...). */
	constructor(name: string) {
		this.#name = name;
	}

	/**
	 * Makes `subscriber` the one told of every start of this lifecycle, in place of the one before; returns the
	 * function that removes it (and only it).
	 */
	subscribe(subscriber: (start: Start) => Watch): () => void {
		const all = subscribers();
		all[this.#name] = subscriber;
		return () => {
			if (all[this.#name] === subscriber) all[this.#name] = undefined;
		};
	}

	/**
	 * The subscriber's watch of one lifecycle, or undefined when none subscribes. A subscriber that throws is
	 * told to `failed` and watches nothing this time: instrumentation never fails what it observes.
	 */
	start(start: Start, failed: (error: unknown) => void): Watch | undefined {
		const subscriber = subscribers()[this.#name] as ((start: Start) => Watch) | undefined;
		if (subscriber === undefined) return undefined;
		try {
			return subscriber(start);
		} catch (error) {
			failed(error);
			return undefined;
		}
	}
}

/** A method of two watches of one lifecycle as one: `first`'s, then `second`'s, told the same. */
export function tellBoth<W, K extends keyof W>(first: W, second: W, method: K): W[K] {
	const tell = (watch: W, args: unknown[]) => (watch[method] as (...args: unknown[]) => void).apply(watch, args);
	return ((...args: unknown[]) => {
		tell(first, args);
		tell(second, args);
	}) as W[K];
}

/** An error's class name for a warning: never its message, which may hold anything. */
export function errorName(error: unknown): string {
	const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
	return typeof name === "string" && /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : "_OTHER";
}
