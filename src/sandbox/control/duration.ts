const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest move of the sandbox clock at once: ten years. */
export const MAX_ADVANCE_MS = 10 * 365 * UNIT_MS.d;

/** How a duration is written, for messages. */
export const DURATION_RULE = "must be a duration such as 90s, 30m, 25h, 2d or 1h30m";

/**
 * A duration such as `90s`, `30m`, `25h`, `2d`, `500ms` or `1h30m`, in milliseconds; undefined when
 * the text is no such duration or longer than ten years.
 */
export function parseDuration(text: string): number | undefined {
	const trimmed = text.trim();
	if (!/^(\d+(ms|s|m|h|d))+$/.test(trimmed)) return undefined;
	let total = 0;
	for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g))
		total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
	return Number.isSafeInteger(total) && total <= MAX_ADVANCE_MS ? total : undefined;
}

/** Milliseconds written the short way, largest units first: 5_400_000 -> "1h30m". */
export function formatDuration(ms: number): string {
	if (ms === 0) return "0s";
	let rest = Math.round(ms);
	const parts: string[] = [];
	for (const unit of ["d", "h", "m", "s", "ms"] as const) {
		const size = UNIT_MS[unit];
		const count = Math.floor(rest / size);
		if (count > 0) parts.push(`${count}${unit}`);
		rest -= count * size;
	}
	return parts.join("");
}
