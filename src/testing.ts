// `merchant-gateway/testing`: the gateway sandbox and its MSW handlers.
export * from "./sandbox/index.js";
// The gateway's side of the browser flow: sealing the callback URL it sends the buyer back to.
export { type CallbackInput, sealCallbackUrl } from "./signing/callback-url.js";
