/** Content that tends to break naive implementations: every escape class, trimming, unicode, integer-like keys. */
export const awkward = {
	merchantId: "M-1001",
	orderRef: " \t ORD/2026\\0001 \n\r",
	amount: 1234.56,
	description: 'Tabs\there, "quotes", slashes / and \\, café, 日本茶, emoji 😀, nbsp\u00a0inside',
	nbspEdges: "\u00a0kept\u00a0",
	trimSet: "\u0000\u000b \t\r\nx y\n\r\t \u000b\u0000",
	controls: "bell\u0007 esc\u001b del\u007f",
	"10": "ten",
	"9": "nine",
	nested: { z: [1, -2.5, "  padded  ", null, true, { b: "x", a: "y" }], A: { "2": "two", "10": "ten", é: "accent" } },
	emptyList: [],
	flag: false,
	nothing: null,
};

/** PHP `trim`'s set, at both ends of every string at every depth: what a 2.0 verifier hands out. */
export function trimmedDeep(value: unknown): unknown {
	if (typeof value === "string") return value.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, "");
	if (Array.isArray(value)) return value.map(trimmedDeep);
	if (typeof value !== "object" || value === null) return value;
	return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, trimmedDeep(item)]));
}
