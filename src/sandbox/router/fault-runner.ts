import { findMerchant } from "../api/context.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { DROPPED, type FaultTools, resolveFaultResponse, type SandboxFault } from "../wire/fault-queue.js";
import { type ReceivedEntry, receivedView } from "../wire/received-log.js";
import type { SandboxResponse } from "../wire/request-response.js";

/**
 * Handles a request a fault was queued for: holds it, then drops the connection,
 * responds with the fault's response, or lets the sandbox respond (and cuts that response short).
 */
export async function runFault<Read, Handled extends SandboxResponse>(
	core: SandboxCore,
	fault: SandboxFault,
	received: ReceivedEntry,
	read: () => Promise<Read>,
	respond: (read: Read) => Promise<Handled>,
	signal: AbortSignal | undefined,
): Promise<Handled | SandboxResponse> {
	const wait = (ms: number, wake: () => void) => core.clock.schedule(core.clock.nowMs() + ms, wake);
	if (fault.drop === "before-reading") {
		await core.faults.hold(fault, received.path, wait, signal);
		return DROPPED;
	}
	const arrived = await read();
	if (!(await core.faults.hold(fault, received.path, wait, signal)) || fault.drop === "after-reading") return DROPPED;
	let handled: Promise<Handled> | undefined;
	const sandboxResponse = () => {
		handled ??= respond(arrived);
		return handled;
	};
	const response =
		fault.response === undefined
			? await sandboxResponse()
			: await resolveFaultResponse(fault.response, receivedView(received), tools(core, received, sandboxResponse));
	if (fault.drop === "after-processing") {
		await sandboxResponse();
		return DROPPED;
	}
	return fault.drop === "mid-response" ? { ...response, drop: "mid-body" } : response;
}

function tools(
	core: SandboxCore,
	received: ReceivedEntry,
	sandboxResponse: () => Promise<SandboxResponse>,
): FaultTools {
	const account = received.claimed && findMerchant(core, received.claimed)?.merchant;
	const signVersion = account?.signVersion ?? "2.0";
	return {
		sandboxResponse,
		signVersion,
		sealFlat: (fields, version = signVersion) => core.signer.flat(fields, version),
		sealWrapped: (status, message, data, version = signVersion) => core.signer.wrapped(status, message, data, version),
	};
}
