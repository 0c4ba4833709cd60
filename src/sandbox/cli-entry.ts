/**
 * The sandbox as `npx merchant-gateway` reaches it, and the only module of src/sandbox the CLI imports:
 * what `merchant-gateway/testing` exports, and the state directory the CLI shares with a running sandbox.
 */

export {
	ensureControlToken,
	type RunningSandbox,
	readRunningSandbox,
	removeRunningSandbox,
	writeRunningSandbox,
} from "./control/control-files.js";
export { DURATION_RULE, formatDuration, parseDuration } from "./control/duration.js";
export { sandboxOnStateDir } from "./create-sandbox.js";
export * from "./index.js";
export { DEMO_SHOP_PATH } from "./pages/demo-shop.js";
export { type KeyFolder, type KeyPair, openKeyFolder } from "./persistence/key-files.js";
export { checkPrivateFolder, createPrivateFile, readPrivateFile } from "./persistence/private-files.js";
export { openStateDir, type StateDir } from "./persistence/state-dir.js";
export { KEY_FILES, STATE_FILES } from "./persistence/state-layout.js";
