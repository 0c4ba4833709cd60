import { KEY_FILES, KEYS_FOLDER } from "../../../sandbox/persistence/key-files.js";

/** The key files of a state directory, in its `keys/` folder; the private ones are readable by their owner only. */
export const STATE_KEYS = { dir: KEYS_FOLDER, ...KEY_FILES } as const;
