// Other 2.0 signed-string forms seen in public integrations, for the `signedString` option.
export { flatStringifiedForm } from "./flat-stringified.js";
export { nodeSnippetForm } from "./node-snippet.js";
export { retiredFirstDraftForm } from "./retired-first-draft.js";
