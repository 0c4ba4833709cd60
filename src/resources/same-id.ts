import { canonicalId } from "../internal/ids.js";

/** Two ULIDs name the same thing whatever their case (the gateway writes them in lowercase). */
export function sameId(a: string, b: string): boolean {
	return canonicalId(a) === canonicalId(b);
}
