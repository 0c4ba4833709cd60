// `merchant-gateway/testing`: the gateway sandbox, in-process and over HTTP. Its MSW handlers are in
// `merchant-gateway/testing/msw`, so this entry needs no msw.
export * from "./sandbox/index.js";
// The gateway's side of the browser flow: sealing the callback URL it sends the buyer back to.
export { type CallbackInput, sealCallbackUrl } from "./signing/callback-url.js";
