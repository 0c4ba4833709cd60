// Preloaded with --require by the Node floor tests: this process then looks like an older Node.js.
// FAKE_NODE_VERSION replaces process.versions.node; FAKE_NO_GET_BUILTIN_MODULE removes
// process.getBuiltinModule, as on Node.js before 22.3.
"use strict";
const version = process.env.FAKE_NODE_VERSION;
if (version) {
	const versions = Object.assign({}, process.versions, { node: version });
	Object.defineProperty(process, "versions", { value: versions, enumerable: true, configurable: true });
}
if (process.env.FAKE_NO_GET_BUILTIN_MODULE) delete process.getBuiltinModule;
