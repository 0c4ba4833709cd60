import type * as OpenTelemetryApi from "@opentelemetry/api";

/** The `@opentelemetry/api` module, as the application installed it. */
export type OpenTelemetry = typeof OpenTelemetryApi;

let loading: Promise<OpenTelemetry | undefined> | undefined;
let settled: { api: OpenTelemetry | undefined; error: unknown } | undefined;

/**
 * `@opentelemetry/api`, loaded on first use, or undefined when the application has not installed it.
 *
 * It is an optional peer dependency, so the import must cost nothing where it is absent, in every
 * build and under every bundler:
 * - it is a dynamic `import()`, made by the first call that records telemetry: importing the SDK
 *   never loads it, and Node, Bun, Deno and workerd reject it at run time when it is missing;
 * - the specifier is a string literal inside `try`: a bundler that finds the package includes it
 *   (a Worker bundle has no node_modules to load it from later), and one that does not leaves the
 *   import to run time instead of failing the build (esbuild's and webpack's rule for a guarded import);
 * - the CommonJS build keeps it an `import()` too, which loads the package's ESM build: both builds of
 *   the API share the application's registered providers through the API's own global registry.
 */
export function loadOpenTelemetry(): Promise<OpenTelemetry | undefined> {
	loading ??= importApi().then((outcome) => {
		settled = outcome;
		return outcome.api;
	});
	return loading;
}

/** What the load came to once it has settled: the API, or why it is absent (synchronous after the first load). */
export function loadedOpenTelemetry(): { api: OpenTelemetry | undefined; error: unknown } | undefined {
	return settled;
}

async function importApi(): Promise<{ api: OpenTelemetry | undefined; error: unknown }> {
	try {
		return { api: await import("@opentelemetry/api"), error: undefined };
	} catch (error) {
		return { api: undefined, error };
	}
}
