// `merchant-gateway/testing/msw`: the sandbox as MSW request handlers. Its own entry, so that
// `merchant-gateway/testing` loads without msw installed.
export { type SandboxHandlersOptions, sandboxHandlers } from "./sandbox/msw.js";
