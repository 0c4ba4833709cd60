import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe } from "vitest";
import {
	InvalidNotificationError,
	MalformedMessageError,
	SignatureVerificationError,
	verifyNotification,
} from "../../src/index.js";
import { openMessage, openVerified } from "../../src/signing/open.js";
import {
	expectCoveredBySigned,
	expectNoPollution,
	expectPlainData,
	expectSignedContent,
	typedOutcome,
	violation,
} from "./support/checks.js";
import { bodies, expectAsReceived } from "./support/inputs.js";
import { fuzzTarget } from "./support/runner.js";
import { gatewayFields, gatewayPublicKey, ipnFields, messageCases, signedMessages } from "./support/signed.js";

/**
 * IPN bodies and gateway messages, in both signing versions, as text, bytes and parsed
 * objects: validly signed messages mutated (structure, escapes, padding, types, bytes).
 * - openMessage may throw MalformedMessageError or SignatureVerificationError, nothing else;
 * - verifyNotification may throw InvalidNotificationError or SignatureVerificationError;
 * - what either accepts hands out exactly what the signature covers.
 */

const messages = messageCases(signedMessages(gatewayFields));
const ipns = messageCases(signedMessages(ipnFields));
const options = { publicKey: gatewayPublicKey };

describe("fuzz: signed messages", () => {
	fuzzTarget("openMessage: IPN bodies in 2.0 and 2.1 as text, bytes and objects", () =>
		fc.property(bodies(messages), (received) => {
			const outcome = typedOutcome(
				() => openVerified(received.input, options),
				[MalformedMessageError, SignatureVerificationError],
			);
			const viaPublic = typedOutcome(
				() => openMessage(received.input, options),
				[MalformedMessageError, SignatureVerificationError],
			);
			if (outcome.ok !== viaPublic.ok) violation("openMessage and openVerified disagree");
			if (outcome.ok && viaPublic.ok) {
				const { fields, signVersion } = outcome.value;
				if (!isDeepStrictEqual(viaPublic.value, fields))
					violation("openMessage hands out other fields than openVerified");
				if (!received.message) violation("accepted a value that was never signed");
				expectSignedContent(fields, signVersion, received.message.origin);
				expectAsReceived(received, fields, signVersion);
			}
			expectNoPollution();
		}),
	);

	fuzzTarget("verifyNotification: IPN bodies in 2.0 and 2.1 as text, bytes and objects", () =>
		fc.property(bodies(ipns), (received) => {
			const outcome = typedOutcome(
				() => verifyNotification(received.input, { gatewayPublicKey }),
				[InvalidNotificationError, SignatureVerificationError],
			);
			if (outcome.ok) {
				const event = outcome.value;
				if (!received.message) violation("accepted a value that was never signed");
				const resource = event.type === "transaction" ? event.transaction : event.refund;
				expectPlainData(event);
				expectCoveredBySigned(resource, event.signVersion, received.message.origin);
				const id = event.type === "transaction" ? event.transaction.transactionId : event.refund.refundId;
				// The id in its canonical case: ULIDs are case-insensitive.
				if (event.eventId !== `${event.type}:${id.toLowerCase()}:${resource.status}`)
					violation(`eventId ${event.eventId} does not name the resource`);
			}
			expectNoPollution();
		}),
	);
});
