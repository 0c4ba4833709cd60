import { decodeCallback } from "../../notifications/message/callback.js";
import { readInput } from "../input.js";
import { verifyingCommand } from "./verifying-command.js";

export const decodeCallbackCommand = verifyingCommand({
	name: "decode-callback",
	summary: "Verify and decode a callback redirect URL",
	argument: "<url|->",
	about: `Verifies the signature of a callback redirect ({callbackUrl}?payload=..., 2.0 or
2.1) with the gateway's public key and prints the decoded fields as JSON:
status, transactionId, ref, amount, currency. Quote the URL in your shell, or
give - and the URL on standard input.`,
	oneArgument: "give exactly one callback URL, or - for standard input",
	read: async (given, io) => (given === "-" ? (await readInput("-", io, "the callback URL")).trim() : given),
	verify: (url, gatewayPublicKey) => decodeCallback(url, { gatewayPublicKey }),
});
