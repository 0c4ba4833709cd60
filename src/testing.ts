/**
 * The gateway sandbox, in-process and over HTTP, with its test cards. Its MSW handlers are in
 * `merchant-gateway/testing/msw`, so this entry needs no msw.
 * @module merchant-gateway/testing
 */
export * from "./sandbox/index.js";
// The gateway's side of the browser flow: sealing the callback URL it sends the buyer back to.
export { type CallbackInput, sealCallbackUrl } from "./signing/callback-url.js";
