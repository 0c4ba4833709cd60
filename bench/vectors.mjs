// The known-answer vectors (test/vectors/reference-form-vectors.json), for the benches.
import { readFileSync } from "node:fs";

const { vectors } = JSON.parse(
	readFileSync(new URL("../test/vectors/reference-form-vectors.json", import.meta.url), "utf8"),
);

/** A vector by name, with `input`: the object a signer starts from, or what a verifier hands out. */
export function vector(name) {
	const found = vectors.find((v) => v.name === name);
	if (!found) throw new Error(`no vector ${name}`);
	const input =
		found.inputText !== undefined
			? JSON.parse(found.inputText)
			: found.fields !== undefined
				? JSON.parse(found.fields)
				: found.input;
	return { ...found, input };
}
