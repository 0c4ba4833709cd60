import { createHash, timingSafeEqual } from "node:crypto";
import { isLoopbackHost } from "../../schemas/fields.js";
import { STATE_FILES } from "../persistence/state-layout.js";

/** What the access check reads of a control request. */
export interface ControlCaller {
	/** The peer's IP address, as the socket reports it. */
	remoteAddress: string | undefined;
	/** A request header, or null. */
	header(name: string): string | null;
}

/** Why a control request is refused: its status and a message that says what to do. */
export interface AccessRefusal {
	status: 401 | 403;
	message: string;
}

/** The peer is this machine: 127.0.0.0/8 or ::1, IPv4-mapped included. */
export function isLoopbackAddress(address: string | undefined): boolean {
	if (address === undefined) return false;
	const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
	return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === "::1";
}

/** The host a Host header names, without its port. */
function hostOf(header: string | null): string {
	const host = (header ?? "").trim().toLowerCase();
	return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Compares in constant time: hashing first gives both sides one length whatever was sent. */
function sameToken(given: string, expected: string): boolean {
	return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Whether a control request may go on: it comes from this machine, addressed to a loopback host and not
 * relayed by a proxy (a tunnel to a public URL delivers from loopback too), and it carries the control
 * credential as `Authorization: Bearer <token>`. Returns the refusal, or undefined when it may.
 */
export function refuseAccess(caller: ControlCaller, token: string): AccessRefusal | undefined {
	if (!isLoopbackAddress(caller.remoteAddress)) {
		const from = caller.remoteAddress ?? "an unknown address";
		return { status: 403, message: `The control API serves this machine only; this request came from ${from}.` };
	}
	if (caller.header("forwarded") !== null || caller.header("x-forwarded-for") !== null) {
		return { status: 403, message: "The control API serves this machine only; this request came through a proxy." };
	}
	if (!isLoopbackHost(hostOf(caller.header("host")))) {
		const rule = "address it to a loopback host, such as 127.0.0.1 or localhost";
		return { status: 403, message: `The control API serves this machine only: ${rule}.` };
	}
	const where = `the ${STATE_FILES.controlToken} file in the sandbox's state directory`;
	const authorization = caller.header("authorization");
	const bearer = authorization === null ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
	if (bearer === undefined) {
		const message = `The control API needs its credential: send Authorization: Bearer <token>, the token in ${where}.`;
		return { status: 401, message };
	}
	if (!sameToken(bearer, token)) {
		return { status: 401, message: `The control credential is wrong: use the token in ${where}.` };
	}
	return undefined;
}
