// A sandbox server in its own process for the model test, which kills it with SIGKILL. It reports its port
// over IPC, and answers "settle" once no IPN attempt runs and every change is on disk.
import { coreOf } from "../../../src/sandbox/create-sandbox.js";
import { startSandboxServer } from "../../../src/testing.js";
import { modelServerOptions } from "./model-options.js";

const stateDir = process.env.MODEL_STATE_DIR ?? "";
const server = await startSandboxServer(modelServerOptions(stateDir));
process.on("message", async () => {
	await server.sandbox.whenIdle();
	await coreOf(server.sandbox)?.saved();
	process.send?.({ settled: true });
});
process.send?.({ port: server.port });
