import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { type CryptoBackendName, type KeySource, type ParsedKey, resolveBackend } from "./backend.js";
import { base64Encode } from "./encoding.js";
import { type KeyTextShape, readKeyText, withShape } from "./key-text.js";

/** Key material as merchants receive it: PEM text, bare base64 DER, or DER bytes. */
export type KeyInput = string | Uint8Array;

/** Options of `loadPublicKey`. */
export interface LoadPublicKeyOptions {
	/** Accept keys under 2048 bits (never do this outside tests). @default false */
	allowWeakKeys?: boolean | undefined;
	/** Backend that parses the key first; other backends import it on demand. @default the current default backend */
	backend?: CryptoBackendName | undefined;
}

/** Options of `loadPrivateKey`. */
export interface LoadPrivateKeyOptions extends LoadPublicKeyOptions {
	/** Passphrase of an encrypted PKCS#8 key. @default undefined */
	passphrase?: string | undefined;
}

/** Smallest key accepted without `allowWeakKeys`. */
export const MIN_BITS = 2048;
/** Largest signing key: a 4096-bit signature is 684 base64 characters, the field holds 750. */
export const MAX_SIGNING_BITS = 4096;
const PRIVATE_LABELS = new Set(["PRIVATE KEY", "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]);
const PUBLIC_LABELS = new Set(["PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE"]);
/** Traditional PEM labels of other algorithms: named, so the error can say "not RSA" rather than "unknown". */
const NON_RSA_LABELS = new Set([
	"EC PRIVATE KEY",
	"DSA PRIVATE KEY",
	"OPENSSH PRIVATE KEY",
	"EC PARAMETERS",
	"DSA PARAMETERS",
]);
const REDACTED = "[redacted key]";

/** A key argument as the backends take it, and, for text, what it looked like (for the errors). */
function toSource(input: KeyInput, role: "private" | "public"): { source: KeySource; shape?: KeyTextShape } {
	if (input instanceof Uint8Array) return { source: { encoding: "der", bytes: input } };
	if (typeof input !== "string") {
		throw new InvalidKeyError(
			"unrecognized_format",
			`A ${role} key must be PEM text, base64 DER or DER bytes, not ${input === null ? "null" : typeof input}.`,
		);
	}
	const read = readKeyText(input, role);
	if (read.encoding === "der") return { source: { encoding: "der", bytes: read.bytes }, shape: read.shape };
	const { label } = read;
	const allowed = role === "private" ? PRIVATE_LABELS : PUBLIC_LABELS;
	if (!allowed.has(label)) {
		if (NON_RSA_LABELS.has(label))
			throw new InvalidKeyError("not_rsa", `A PEM "${label}" block is not an RSA key; the gateway uses RSA keys only.`);
		const other = role === "private" ? PUBLIC_LABELS : PRIVATE_LABELS;
		if (other.has(label)) throw wrongKeyType(role, `a PEM "${label}" block`);
		throw new InvalidKeyError("unrecognized_format", `A PEM "${label}" block is not a supported ${role} key.`);
	}
	return { source: { encoding: "pem", label, text: read.text }, shape: read.shape };
}

function wrongKeyType(expected: "private" | "public", got: string): InvalidKeyError {
	return new InvalidKeyError(
		"wrong_key_type",
		expected === "private"
			? `Expected a private key but got ${got}: ` +
					"signing needs the private key; public keys and certificates only verify."
			: `Expected a public key or certificate but got ${got}: pass the public key, never the private key.`,
	);
}

/** True when `parse` recognised the material as that kind of key, even if it then refused it (encrypted, not RSA). */
function recognizes(parse: () => unknown): boolean {
	try {
		parse();
		return true;
	} catch (error) {
		return error instanceof InvalidKeyError && error.reason !== "unrecognized_format";
	}
}

function checkSize(parsed: ParsedKey, role: "private" | "public", allowWeak: boolean): void {
	if (parsed.type !== "rsa")
		throw new InvalidKeyError(
			"not_rsa",
			`The ${role} key is ${parsed.type.toUpperCase()}, but the gateway uses RSA keys only.`,
		);
	if (parsed.bits < MIN_BITS && !allowWeak) {
		throw new InvalidKeyError(
			"too_small",
			`The ${role} key has ${parsed.bits} bits; at least ${MIN_BITS} are required ` +
				"(allowWeakKeys opts out, for tests only).",
		);
	}
	if (role === "private" && parsed.bits > MAX_SIGNING_BITS) {
		throw new InvalidKeyError(
			"too_large",
			`The private key has ${parsed.bits} bits; signing keys may have at most ${MAX_SIGNING_BITS} ` +
				"(the signature field holds 750 characters).",
		);
	}
}

/** Shared by both key classes: one parse per backend, kept for the key's lifetime. */
abstract class ParsedKeyCache {
	/** The key's size in bits (its modulus length). */
	readonly bits: number;
	readonly #handles = new Map<CryptoBackendName, unknown>();

	/** @internal use `loadPrivateKey` or `loadPublicKey` */
	constructor(backend: CryptoBackendName, parsed: ParsedKey) {
		this.bits = parsed.bits;
		this.#handles.set(backend, parsed.handle);
	}

	/** @internal The backend's own key object, imported from another backend's copy when needed. */
	handleFor(backend: CryptoBackendName): unknown {
		const cached = this.#handles.get(backend);
		if (cached !== undefined) return cached;
		const [fromName, fromHandle] = this.#handles.entries().next().value as [CryptoBackendName, unknown];
		const [from, to] = [resolveBackend(fromName), resolveBackend(backend)];
		const handle = PrivateKey.isPrivateKey(this)
			? to.importPrivateKey({ encoding: "der", bytes: from.exportPrivateKey(fromHandle) }, undefined).handle
			: to.importPublicKey({ encoding: "der", bytes: from.exportPublicKey(fromHandle) }).handle;
		this.#handles.set(backend, handle);
		return handle;
	}

	/** `"[redacted key]"`: key material never reaches JSON. */
	toJSON(): string {
		return REDACTED;
	}
	/** `"[redacted key]"`: key material never reaches a string. */
	toString(): string {
		return REDACTED;
	}
	/** The class's name written out: a bundler may rename the class itself. */
	[Symbol.for("nodejs.util.inspect.custom")](): string {
		return `${PrivateKey.isPrivateKey(this) ? "PrivateKey" : "PublicKey"} { bits: ${this.bits}, ${REDACTED} }`;
	}
}

/** An RSA private key, parsed once. Its material is never shown by `inspect`, `JSON.stringify` or `String()`. */
export class PrivateKey extends ParsedKeyCache {
	readonly #brand = "private";

	/** Whether `value` is a key `loadPrivateKey` made. */
	static isPrivateKey(value: unknown): value is PrivateKey {
		return typeof value === "object" && value !== null && #brand in value;
	}
}

/** An RSA public key, parsed once. */
export class PublicKey extends ParsedKeyCache {
	readonly #brand = "public";

	/** Whether `value` is a key `loadPublicKey` made. */
	static isPublicKey(value: unknown): value is PublicKey {
		return typeof value === "object" && value !== null && #brand in value;
	}
}

/**
 * Parses an RSA private key: PKCS#1, PKCS#8 or encrypted PKCS#8, as PEM or as
 * base64 DER (with or without line breaks, LF or CRLF), or as DER bytes. Refuses
 * non-RSA keys, public keys, keys under 2048 bits (unless `allowWeakKeys`) and
 * keys over 4096 bits, each with its own `reason`.
 *
 * @throws InvalidKeyError naming the rule that failed; never echoes the key.
 */
export function loadPrivateKey(input: KeyInput, options: LoadPrivateKeyOptions = {}): PrivateKey {
	const backend = resolveBackend(options.backend);
	const { source, shape } = toSource(input, "private");
	let parsed: ParsedKey;
	try {
		parsed = backend.importPrivateKey(source, options.passphrase);
	} catch (error) {
		// DER carries no label: only after it failed as a private key is it worth asking whether it is a public one.
		const unrecognized = error instanceof InvalidKeyError && error.reason === "unrecognized_format";
		if (unrecognized && source.encoding === "der" && recognizes(() => backend.importPublicKey(source)))
			throw wrongKeyType("private", "a public key");
		throw withShape(error, shape);
	}
	checkSize(parsed, "private", options.allowWeakKeys === true);
	return new PrivateKey(backend.name, parsed);
}

/**
 * Parses an RSA public key: SPKI, PKCS#1 public or an X.509 certificate, as PEM,
 * base64 DER or DER bytes. Refuses non-RSA keys, private keys and keys under 2048
 * bits (unless `allowWeakKeys`). Keys over 4096 bits verify: only signing keys are capped.
 *
 * @throws InvalidKeyError naming the rule that failed; never echoes the key.
 */
export function loadPublicKey(input: KeyInput, options: LoadPublicKeyOptions = {}): PublicKey {
	const backend = resolveBackend(options.backend);
	const { source, shape } = toSource(input, "public");
	// node:crypto would quietly derive a public key from private DER: refuse private material first.
	if (source.encoding === "der" && recognizes(() => backend.importPrivateKey(source, undefined)))
		throw wrongKeyType("public", "a private key");
	let parsed: ParsedKey;
	try {
		parsed = backend.importPublicKey(source);
	} catch (error) {
		throw withShape(error, shape);
	}
	checkSize(parsed, "public", options.allowWeakKeys === true);
	return new PublicKey(backend.name, parsed);
}

/** A key argument: a loaded key or the raw PEM/DER it would be loaded from. */
export type PrivateKeyLike = PrivateKey | KeyInput;
/** A public key argument: a loaded key or the raw PEM/DER it would be loaded from. */
export type PublicKeyLike = PublicKey | KeyInput;

const privateCache = new Map<string, PrivateKey>();
const publicCache = new Map<string, PublicKey>();
const CACHE_LIMIT = 32;

/** Raw material loaded: a string once (then cached, the oldest of `CACHE_LIMIT` dropped first), bytes each time. */
function loadCached<K>(cache: Map<string, K>, load: (input: KeyInput) => K, input: KeyInput): K {
	if (typeof input !== "string") return load(input);
	const hit = cache.get(input);
	if (hit) return hit;
	const made = load(input);
	if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
	cache.set(input, made);
	return made;
}

/** @internal A loaded private key as is; raw PEM/DER loaded (PEM strings once, then cached). */
export function toPrivateKey(key: PrivateKeyLike): PrivateKey {
	return PrivateKey.isPrivateKey(key) ? key : loadCached(privateCache, loadPrivateKey, key);
}

/** @internal One key or a rotation list, as loaded public keys (PEM strings parsed once, then cached). */
export function toPublicKeys(keys: PublicKeyLike | readonly PublicKeyLike[]): PublicKey[] {
	const list = Array.isArray(keys) ? keys : [keys as PublicKeyLike];
	if (list.length === 0)
		throw new InvalidKeyError("unrecognized_format", "At least one gateway public key is required.");
	return list.map((key) => (PublicKey.isPublicKey(key) ? key : loadCached(publicCache, loadPublicKey, key)));
}

/**
 * @internal A public key argument as text `loadPublicKey` reads back: PEM as given, DER bytes and
 * loaded keys as base64 SPKI DER (what a saved sandbox state keeps of a merchant's key).
 */
export function publicKeyText(key: PublicKeyLike): string {
	if (typeof key === "string") return key;
	if (!PublicKey.isPublicKey(key)) return base64Encode(key);
	const backend = resolveBackend();
	return base64Encode(backend.exportPublicKey(key.handleFor(backend.name)));
}
