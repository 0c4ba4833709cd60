/**
 * The SDK's version, for the User-Agent and telemetry's instrumentation scope. A plain constant so that
 * nothing reads package.json at runtime; `test/client/options.test.ts` keeps it equal to package.json's
 * `version`.
 */
export const SDK_VERSION = "0.1.0";
