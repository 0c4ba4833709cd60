/**
 * Every name in a sandbox state directory, written here only: the sandbox, its control files and the
 * CLI build their paths from these.
 *
 * ```
 * <dir>/
 *   state-format.json   the format version of the files below
 *   snapshot.ndjson     the journal folded into one line per record, rewritten at each start and
 *                       whenever the running sandbox's journal passes a size
 *   journal.ndjson      every change as it happens, started afresh at each start and after each fold
 *   sandbox.lock        who holds the directory (one sandbox at a time)
 *   control-token       the control API's bearer credential (mode 0600), kept across starts
 *   sandbox.json        where the running sandbox listens; removed when it stops
 *   keys/               the key files below (also the layout of a --keys-dir)
 * ```
 */
export const STATE_FILES = {
	format: "state-format.json",
	snapshot: "snapshot.ndjson",
	journal: "journal.ndjson",
	lock: "sandbox.lock",
	controlToken: "control-token",
	running: "sandbox.json",
	keys: "keys",
} as const;

/** The key files of `keys/` (and of a `--keys-dir`); the private ones have mode 0600. */
export const KEY_FILES = {
	gatewayPrivate: "gateway-private.pem",
	gatewayPublic: "gateway-public.pem",
	merchantPrivate: "merchant-private.pem",
	merchantPublic: "merchant-public.pem",
} as const;

const TEMPORARY_SUFFIX = ".tmp";

/**
 * A new name beside `path` for the file that will replace it: `<name>.<unique>.tmp`. Created exclusively,
 * written, then renamed over `path`, so a reader sees the old file or the new one, never half of one.
 */
export function temporaryPath(path: string, unique: string): string {
	return `${path}.${unique}${TEMPORARY_SUFFIX}`;
}

/** Whether `entry` (a name in the directory) is a temporary file left beside the state file `name`. */
export function isTemporaryOf(entry: string, name: string): boolean {
	return entry.startsWith(`${name}.`) && entry.endsWith(TEMPORARY_SUFFIX);
}

/**
 * The claim on replacing one stale lock (`sandbox.lock.takeover-<digest of its content>`): whoever creates
 * it first may replace that lock; see lock.ts.
 */
export function takeoverPath(lockPath: string, digest: string): string {
	return `${lockPath}.takeover-${digest}`;
}
