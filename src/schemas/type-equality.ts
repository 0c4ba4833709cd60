/**
 * Compile-time checks that a hand-documented interface says exactly what a zod
 * schema infers: same keys, same required keys, mutually assignable. The schema
 * stays the one source of truth; the interface exists because declaration files
 * drop the TSDoc of properties inferred through zod, and users should see the
 * docs (and defaults) on hover.
 */

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** `true` when A and B describe the same object shape. */
export type SameShape<A, B> = [A] extends [B]
	? [B] extends [A]
		? [keyof A] extends [keyof B]
			? [keyof B] extends [keyof A]
				? [RequiredKeys<A>] extends [RequiredKeys<B>]
					? [RequiredKeys<B>] extends [RequiredKeys<A>]
						? true
						: false
					: false
				: false
			: false
		: false
	: false;

/** Fails to compile unless `T` is `true`. */
export type Assert<T extends true> = T;
