/**
 * The sandbox as MSW request handlers. Its own entry, so that `merchant-gateway/testing` loads
 * without msw installed.
 * @module merchant-gateway/testing/msw
 */
export { type SandboxHandlersOptions, sandboxHandlers } from "./sandbox/msw-handlers.js";
