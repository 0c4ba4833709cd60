import { parseColor, type Rgb, readableOn, textOn, toHex, WHITE } from "./colors.js";

/** The colours a page is drawn with, every one `#rrggbb` and every text colour readable (WCAG AA). */
export interface Theme {
	/** Buttons and the header's rule. */
	primary: string;
	/** Text on `primary`: white or near-black, whichever reads. */
	onPrimary: string;
	/** Headings and links on the white card, darkened from the merchant's colour when it is too light. */
	accent: string;
	/** Behind the card. */
	background: string;
	/** Text on `background`, should any sit there. */
	onBackground: string;
}

const DEFAULTS = { primary: "#1f6feb", accent: "#0b3d91", background: "#f5f7fb" } as const;

export const DEFAULT_THEME: Theme = themeFrom(undefined);

/**
 * colorMode: up to three colours joined by `---`: primary, accent, background. Each is drawn
 * as the opaque colour it paints on the white page; one the page cannot read falls back to the
 * default, and text colours are chosen (or darkened) so they keep WCAG AA contrast.
 */
export function themeFrom(colorMode: string | undefined): Theme {
	const parts = (colorMode ?? "").split("---");
	const pick = (index: number, fallback: string) => {
		const part = parts[index]?.trim();
		return (part && parseColor(part)) || (parseColor(fallback) as Rgb);
	};
	const [primary, accent, background] = [
		pick(0, DEFAULTS.primary),
		pick(1, DEFAULTS.accent),
		pick(2, DEFAULTS.background),
	];
	return {
		primary: toHex(primary),
		onPrimary: toHex(textOn(primary)),
		accent: toHex(readableOn(accent, WHITE)),
		background: toHex(background),
		onBackground: toHex(textOn(background)),
	};
}
