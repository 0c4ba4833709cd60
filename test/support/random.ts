import { onTestFailed } from "vitest";
import { randomFrom } from "./prng.js";

export { randomFrom };

/**
 * The current test's random choices from one seed, so that a failure can be replayed: TEST_SEED when it is
 * set, else a fresh seed. A failing test prints its seed and the command line that replays it.
 */
export function seededRandom(): { seed: number; random: () => number } {
	const given = process.env.TEST_SEED;
	const seed = given === undefined ? Math.floor(Math.random() * 2 ** 32) : Number(given);
	if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
		throw new Error(`TEST_SEED must be a whole number from 0 to 4294967295, not "${given}"`);
	}
	onTestFailed(({ task }) => {
		const replay = `TEST_SEED=${seed} npx vitest run ${task.file.name} -t ${JSON.stringify(task.name)}`;
		console.error(`"${task.name}" failed with seed ${seed}; replay its random choices with: ${replay}`);
	});
	return { seed, random: randomFrom(seed) };
}
