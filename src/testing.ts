// `merchant-gateway/testing`: the gateway sandbox and its MSW handlers.
export * from "./sandbox/index.js";
