/**
 * The key files of a state directory's `keys/` folder, which `--keys-dir` also holds:
 * `checkout create` reads the merchant's private key and the gateway's public key from them.
 */
export const KEY_FILES = {
	gatewayPrivate: "gateway-private.pem",
	gatewayPublic: "gateway-public.pem",
	merchantPrivate: "merchant-private.pem",
	merchantPublic: "merchant-public.pem",
} as const;

/** The folder of a state directory that holds the key files. */
export const KEYS_FOLDER = "keys";
