import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { type StarterProbe, type StarterWatch, watchStarter } from "../../src/cli/commands/sandbox/starter-watch.js";

// Which process the sandbox watches, and what counts as its starter ending, on a made-up process
// table and fake timers. The real thing, with npx, is in test/package/sandbox-lifecycle.test.ts.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A process table: the sandbox under `sh -c` (pid 20) under npm (pid 10), unless a test changes it. */
function table(overrides: Partial<StarterProbe> = {}) {
	const state = { parent: 20, alive: new Set([10, 20]) };
	const probe: StarterProbe = {
		parentPid: () => state.parent,
		parentOf: (pid) => (pid === 20 ? 10 : undefined),
		isAlive: (pid) => state.alive.has(pid),
		env: { npm_lifecycle_event: "npx" },
		...overrides,
	};
	return { state, probe };
}

/** What the watch said within `ms` more of polling, or undefined. */
async function saidWithin(watch: StarterWatch | undefined, ms: number): Promise<string | undefined> {
	if (!watch) throw new Error("expected a watch");
	let said: string | undefined;
	void watch.gone.then((reason) => {
		said = reason;
	});
	await vi.advanceTimersByTimeAsync(ms);
	return said;
}

describe("the sandbox watches its starter", () => {
	test("its parent ending: the sandbox is handed to another parent", async () => {
		const { state, probe } = table({ env: {} });
		const watch = watchStarter(probe, 500);
		expect(await saidWithin(watch, 2_000)).toBeUndefined();
		state.parent = 1;
		expect(await saidWithin(watch, 500)).toBe("the process that started it (pid 20) ended");
	});

	test("under npm, npm ending while its shell stays", async () => {
		const { state, probe } = table();
		const watch = watchStarter(probe, 500);
		state.alive.delete(10);
		expect(await saidWithin(watch, 500)).toBe("npm (pid 10), which started it, ended");
	});

	test("not started by npm: the grandparent is not watched", async () => {
		const { state, probe } = table({ env: {} });
		const watch = watchStarter(probe, 500);
		state.alive.delete(10);
		expect(await saidWithin(watch, 5_000)).toBeUndefined();
	});

	test("started by init (a container's entry point): nothing to watch", () => {
		expect(watchStarter(table({ parentPid: () => 1 }).probe, 500)).toBeUndefined();
	});

	test("stop() ends the watch", async () => {
		const { state, probe } = table();
		const watch = watchStarter(probe, 500);
		watch?.stop();
		state.parent = 1;
		expect(await saidWithin(watch, 5_000)).toBeUndefined();
	});
});
