/** A JSON object as `JSON.parse` makes it: not an array, with `Object.prototype` or no prototype. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const proto = Object.getPrototypeOf(value);
	return proto === Object.prototype || proto === null;
}

/** The JSON object `text` holds, or undefined when it is no JSON or holds something else (an array, a number). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
	try {
		const parsed: unknown = JSON.parse(text);
		return isPlainObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** Sets `name` as an own data member, also when it is `__proto__` (assigning that would set the prototype). */
export function setMember(object: Record<string, unknown>, name: string, value: unknown): void {
	if (name === "__proto__")
		Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
	else object[name] = value;
}
