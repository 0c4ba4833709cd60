import { isThenable } from "./thenable.js";

const ignore = () => {};

/**
 * Calls a merchant's hook (a logger's `onError`, a progress display) so that nothing it does reaches
 * the SDK: a throw is swallowed, and so is the rejection of an `async` hook, which would otherwise end
 * the process as an unhandled rejection. The hook is not awaited: a slow logger never delays a response.
 */
export function callHook<A extends unknown[]>(hook: ((...args: A) => unknown) | undefined, ...args: A): void {
	if (hook === undefined) return;
	try {
		const result = hook(...args);
		// Promise.resolve adopts any thenable, also one whose `then` throws, and the catch ends its rejection.
		if (isThenable(result)) Promise.resolve(result).catch(ignore);
	} catch {
		// A failing hook must not change what the SDK does.
	}
}
