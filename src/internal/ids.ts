/**
 * The one spelling of a gateway id (a ULID): lower case, as the gateway writes them. ULIDs are
 * case-insensitive, so two spellings name one transaction or refund, and one event.
 */
export function canonicalId(id: string): string {
	return id.toLowerCase();
}

/** Two ULIDs name the same thing whatever their case. */
export function sameId(a: string, b: string): boolean {
	return canonicalId(a) === canonicalId(b);
}
