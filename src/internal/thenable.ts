/** Whether `value` is a promise or another thenable: what `await` would wait for. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
	return typeof (value as PromiseLike<unknown> | null | undefined)?.then === "function";
}
