import { verifyNotification } from "../../notifications/message/verify.js";
import { readInput } from "../input.js";
import { verifyingCommand } from "./verifying-command.js";

export const verifyIpn = verifyingCommand({
	name: "verify-ipn",
	summary: "Verify an IPN body from a file or stdin",
	argument: "<file|->",
	about: `Verifies an IPN body exactly as received (2.0 flat or 2.1 payload form) with
the gateway's public key, and prints the event as JSON: its type (transaction
or refund), its event id, signing version and the verified resource.
Use - to read the body from standard input.`,
	oneArgument: "give exactly one file, or - for standard input",
	read: (path, io) => readInput(path, io, "the IPN body"),
	verify: (body, gatewayPublicKey) => verifyNotification(body, { gatewayPublicKey }),
});
