import { generateKeyPair } from "../../signing/generate.js";
import type { StateDir } from "../persistence/state-dir.js";
import { SandboxCore } from "./sandbox-core.js";
import type { SandboxOptions } from "./sandbox-options.js";
import { sandboxSettings } from "./sandbox-settings.js";

/**
 * A sandbox core for these options: in memory, or resumed from `stateDir`. The options are checked
 * before anything touches the disk. The persistence code (node:fs) loads only when a state
 * directory is asked for, so the in-memory sandbox stays free of it.
 * @throws ConfigurationError naming each wrong option, or the state file that stops the start.
 */
export async function openSandboxCore(options: SandboxOptions): Promise<SandboxCore> {
	const { stateDir } = sandboxSettings(options);
	if (stateDir === undefined) return new SandboxCore(options, options.gatewayKeys ?? (await generateKeyPair()));
	const { openStateDir } = await import("../persistence/state-dir.js");
	return coreOnStateDir(options, await openStateDir(stateDir, { gatewayKeys: options.gatewayKeys }));
}

/** A core resumed from a state directory already opened; it owns the directory from now on. */
export async function coreOnStateDir(options: SandboxOptions, state: StateDir): Promise<SandboxCore> {
	try {
		return new SandboxCore(options, state.keys.gateway, state);
	} catch (error) {
		await state.close();
		throw error;
	}
}
