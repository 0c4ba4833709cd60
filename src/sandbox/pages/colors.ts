/**
 * CSS colours as the hosted pages use them: parsed from `colorMode`, flattened onto the white
 * page, and measured with the WCAG 2.x contrast ratio, so text stays readable whatever colours
 * the merchant asks for.
 */

/** An opaque colour, 0-255 per channel. */
export interface Rgb {
	r: number;
	g: number;
	b: number;
}

/** The CSS named colours (CSS Color 4), each name followed by its six hex digits. */
const NAMED = [
	"alicebluef0f8ff antiquewhitefaebd7 aqua00ffff aquamarine7fffd4 azuref0ffff beigef5f5dc bisqueffe4c4 ",
	"black000000 blanchedalmondffebcd blue0000ff blueviolet8a2be2 browna52a2a burlywooddeb887 ",
	"cadetblue5f9ea0 chartreuse7fff00 chocolated2691e coralff7f50 cornflowerblue6495ed cornsilkfff8dc ",
	"crimsondc143c cyan00ffff darkblue00008b darkcyan008b8b darkgoldenrodb8860b darkgraya9a9a9 ",
	"darkgreen006400 darkgreya9a9a9 darkkhakibdb76b darkmagenta8b008b darkolivegreen556b2f ",
	"darkorangeff8c00 darkorchid9932cc darkred8b0000 darksalmone9967a darkseagreen8fbc8f ",
	"darkslateblue483d8b darkslategray2f4f4f darkslategrey2f4f4f darkturquoise00ced1 darkviolet9400d3 ",
	"deeppinkff1493 deepskyblue00bfff dimgray696969 dimgrey696969 dodgerblue1e90ff firebrickb22222 ",
	"floralwhitefffaf0 forestgreen228b22 fuchsiaff00ff gainsborodcdcdc ghostwhitef8f8ff goldffd700 ",
	"goldenroddaa520 gray808080 green008000 greenyellowadff2f grey808080 honeydewf0fff0 hotpinkff69b4 ",
	"indianredcd5c5c indigo4b0082 ivoryfffff0 khakif0e68c lavendere6e6fa lavenderblushfff0f5 ",
	"lawngreen7cfc00 lemonchiffonfffacd lightblueadd8e6 lightcoralf08080 lightcyane0ffff ",
	"lightgoldenrodyellowfafad2 lightgrayd3d3d3 lightgreen90ee90 lightgreyd3d3d3 lightpinkffb6c1 ",
	"lightsalmonffa07a lightseagreen20b2aa lightskyblue87cefa lightslategray778899 lightslategrey778899 ",
	"lightsteelblueb0c4de lightyellowffffe0 lime00ff00 limegreen32cd32 linenfaf0e6 magentaff00ff ",
	"maroon800000 mediumaquamarine66cdaa mediumblue0000cd mediumorchidba55d3 mediumpurple9370db ",
	"mediumseagreen3cb371 mediumslateblue7b68ee mediumspringgreen00fa9a mediumturquoise48d1cc ",
	"mediumvioletredc71585 midnightblue191970 mintcreamf5fffa mistyroseffe4e1 moccasinffe4b5 ",
	"navajowhiteffdead navy000080 oldlacefdf5e6 olive808000 olivedrab6b8e23 orangeffa500 orangeredff4500 ",
	"orchidda70d6 palegoldenrodeee8aa palegreen98fb98 paleturquoiseafeeee palevioletreddb7093 ",
	"papayawhipffefd5 peachpuffffdab9 perucd853f pinkffc0cb plumdda0dd powderblueb0e0e6 purple800080 ",
	"rebeccapurple663399 redff0000 rosybrownbc8f8f royalblue4169e1 saddlebrown8b4513 salmonfa8072 ",
	"sandybrownf4a460 seagreen2e8b57 seashellfff5ee siennaa0522d silverc0c0c0 skyblue87ceeb ",
	"slateblue6a5acd slategray708090 slategrey708090 snowfffafa springgreen00ff7f steelblue4682b4 ",
	"tand2b48c teal008080 thistled8bfd8 tomatoff6347 turquoise40e0d0 violetee82ee wheatf5deb3 whiteffffff ",
	"whitesmokef5f5f5 yellowffff00 yellowgreen9acd32",
].join("");

let named: Map<string, string> | undefined;
function namedColor(name: string): string | undefined {
	named ??= new Map(NAMED.split(" ").map((entry) => [entry.slice(0, -6), entry.slice(-6)]));
	return named.get(name);
}

/** Every CSS colour name the pages know (for the browser test that checks them against Chromium). */
export function colorNames(): string[] {
	return NAMED.split(" ").map((entry) => entry.slice(0, -6));
}

export const WHITE: Rgb = { r: 255, g: 255, b: 255 };

/** `#rrggbb`, the one form the pages write. */
export function toHex({ r, g, b }: Rgb): string {
	return `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;
}

function fromHexDigits(hex: string): { rgb: Rgb; alpha: number } | undefined {
	const digits = hex.length <= 4 ? [...hex].map((d) => d + d).join("") : hex;
	if (digits.length !== 6 && digits.length !== 8) return undefined;
	const channel = (i: number) => Number.parseInt(digits.slice(i, i + 2), 16);
	return { rgb: { r: channel(0), g: channel(2), b: channel(4) }, alpha: digits.length === 8 ? channel(6) / 255 : 1 };
}

/** One rgb()/rgba() argument: 0 to `full` (255 for a channel, 1 for alpha) or a percentage, clamped as CSS clamps it. */
function cssNumber(text: string, full: number): number | undefined {
	const value = Number.parseFloat(text);
	if (!/^[+-]?(\d+\.?\d*|\.\d+)%?$/.test(text) || !Number.isFinite(value)) return undefined;
	return Math.min(full, Math.max(0, text.endsWith("%") ? (value * full) / 100 : value));
}

/** rgb(1, 2, 3), rgba(1, 2, 3, .5), rgb(1 2 3 / 50%). */
function fromFunction(text: string): { rgb: Rgb; alpha: number } | undefined {
	const inner = /^rgba?\((.*)\)$/i.exec(text)?.[1];
	if (inner === undefined) return undefined;
	const [channels = "", alphaPart, extra] = inner.includes("/") ? inner.split("/") : [inner];
	if (extra !== undefined) return undefined;
	const parts = channels.trim().split(inner.includes(",") ? /\s*,\s*/ : /\s+/);
	const alphaText = alphaPart?.trim() ?? (parts.length === 4 ? parts.pop() : undefined);
	if (parts.length !== 3) return undefined;
	const [r, g, b] = parts.map((part) => cssNumber(part, 255));
	const alpha = alphaText === undefined ? 1 : cssNumber(alphaText, 1);
	if (r === undefined || g === undefined || b === undefined || alpha === undefined) return undefined;
	return { rgb: { r, g, b }, alpha };
}

/** A colour over an opaque one, as the browser paints it. */
function over(color: Rgb, alpha: number, below: Rgb): Rgb {
	const mix = (top: number, under: number) => Math.round(top * alpha + under * (1 - alpha));
	return { r: mix(color.r, below.r), g: mix(color.g, below.g), b: mix(color.b, below.b) };
}

/**
 * A colour of `colorMode` (a name, HEX or rgb()/rgba()) as the opaque colour it paints over
 * `below`; undefined for anything else, so the page keeps its default rather than guessing.
 */
export function parseColor(text: string, below: Rgb = WHITE): Rgb | undefined {
	const value = text.trim().toLowerCase();
	let parsed: { rgb: Rgb; alpha: number } | undefined;
	if (value === "transparent") parsed = { rgb: WHITE, alpha: 0 };
	else if (value.startsWith("#")) parsed = /^#[0-9a-f]+$/.test(value) ? fromHexDigits(value.slice(1)) : undefined;
	else if (value.startsWith("rgb")) parsed = fromFunction(value);
	else {
		const hex = namedColor(value);
		parsed = hex === undefined ? undefined : fromHexDigits(hex);
	}
	return parsed && over(parsed.rgb, parsed.alpha, below);
}

/** WCAG 2.x relative luminance. */
export function luminance({ r, g, b }: Rgb): number {
	const linear = (v: number) => {
		const c = v / 255;
		return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	};
	return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG 2.x contrast ratio, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
	const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (light + 0.05) / (dark + 0.05);
}

/** WCAG AA for body text. */
export const AA_TEXT = 4.5;

export const BLACK: Rgb = { r: 0, g: 0, b: 0 };

/** White or black text, whichever reads better on `background`: at least 4.58:1 on any colour. */
export function textOn(background: Rgb): Rgb {
	return contrast(WHITE, background) >= contrast(BLACK, background) ? WHITE : BLACK;
}

/**
 * `color` kept where it already reads on `background`; otherwise moved towards black (or white,
 * on a dark background) step by step until it reaches AA, so the brand's hue stays recognisable.
 */
export function readableOn(color: Rgb, background: Rgb): Rgb {
	if (contrast(color, background) >= AA_TEXT) return color;
	const target = textOn(background);
	for (let step = 1; step <= 20; step++) {
		const mixed = over(target, step / 20, color);
		if (contrast(mixed, background) >= AA_TEXT) return mixed;
	}
	return target;
}
