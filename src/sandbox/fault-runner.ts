import { findMerchant } from "./api/context.js";
import type { SandboxCore } from "./core.js";
import type { SandboxReply } from "./exchange.js";
import { DROPPED, type FaultTools, faultReply, type SandboxFault } from "./faults.js";
import { type ReceivedEntry, receivedView } from "./received.js";

/**
 * Handles a request a fault was queued for: holds it, then drops the connection,
 * answers with the fault's reply, or lets the sandbox answer (and cuts that answer short).
 */
export async function runFault<Read, Reply extends SandboxReply>(
	core: SandboxCore,
	fault: SandboxFault,
	received: ReceivedEntry,
	read: () => Promise<Read>,
	answer: (read: Read) => Promise<Reply>,
	signal: AbortSignal | undefined,
): Promise<Reply | SandboxReply> {
	const wait = (ms: number, wake: () => void) => core.clock.schedule(core.clock.nowMs() + ms, wake);
	if (fault.drop === "before-reading") {
		await core.faults.hold(fault, received.path, wait, signal);
		return DROPPED;
	}
	const arrived = await read();
	if (!(await core.faults.hold(fault, received.path, wait, signal)) || fault.drop === "after-reading") return DROPPED;
	let answered: Promise<Reply> | undefined;
	const sandboxAnswer = () => {
		answered ??= answer(arrived);
		return answered;
	};
	const reply =
		fault.reply === undefined
			? await sandboxAnswer()
			: await faultReply(fault.reply, receivedView(received), tools(core, received, sandboxAnswer));
	if (fault.drop === "after-processing") {
		await sandboxAnswer();
		return DROPPED;
	}
	return fault.drop === "mid-answer" ? { ...reply, drop: "mid-body" } : reply;
}

function tools(core: SandboxCore, received: ReceivedEntry, answer: () => Promise<SandboxReply>): FaultTools {
	const account = received.claimed && findMerchant(core, received.claimed)?.merchant;
	const signVersion = account?.signVersion ?? "2.0";
	return {
		answer,
		signVersion,
		sealFlat: (fields, version = signVersion) => core.signer.flat(fields, version),
		sealWrapped: (status, message, data, version = signVersion) => core.signer.wrapped(status, message, data, version),
	};
}
