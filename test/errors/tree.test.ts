import { describe, expect, test } from "vitest";
import * as errors from "../../src/errors/index.js";
import { HttpRuleError } from "../../src/notifications/http/http-rules.js";

/**
 * One error tree whose branches say what happened. Each leaf is an instance of its
 * branch and of GatewayError, and of no other branch.
 */
const {
	AuthenticationError,
	CheckoutError,
	ConfigurationError,
	ConnectionError,
	CryptoBackendError,
	GatewayError,
	GatewayRefusalError,
	GatewayValidationError,
	InvalidInputError,
	InvalidKeyError,
	InvalidNotificationError,
	InvalidResponseError,
	LeaseExpiredError,
	MalformedMessageError,
	NoS2SProviderError,
	NotificationStoreError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
	ReplayRefusedError,
	RequestValidationError,
	ResponseTooLargeError,
	SignatureVerificationError,
	TimeoutError,
	VerificationError,
} = errors;

const at = { status: 500, path: "/v2/refund" };
const BRANCHES = [GatewayRefusalError, ConnectionError, OutcomeUnknownError, InvalidInputError, VerificationError];

const leaves: Array<[string, Error, (typeof BRANCHES)[number] | undefined]> = [
	["AuthenticationError", new AuthenticationError("a", at), GatewayRefusalError],
	["CheckoutError", new CheckoutError("c", at), GatewayRefusalError],
	["GatewayValidationError", new GatewayValidationError("v", [], at), GatewayRefusalError],
	["NoS2SProviderError", new NoS2SProviderError("n", at), GatewayRefusalError],
	["ProcessingError", new ProcessingError("p", undefined, at), GatewayRefusalError],
	["RateLimitError", new RateLimitError("r", 7, at), GatewayRefusalError],
	["ConnectionError", new ConnectionError("c", at), ConnectionError],
	["TimeoutError", new TimeoutError("t", at), ConnectionError],
	["OutcomeUnknownError", new OutcomeUnknownError("The refund", { transactionId: "T" }, at), OutcomeUnknownError],
	["ConfigurationError", new ConfigurationError([{ field: "baseUrl", message: "is required" }]), InvalidInputError],
	["RequestValidationError", new RequestValidationError([{ field: "amount", message: "m" }]), InvalidInputError],
	["InvalidKeyError", new InvalidKeyError("not_rsa", "k"), InvalidInputError],
	["CryptoBackendError", new CryptoBackendError("b"), InvalidInputError],
	["SignatureVerificationError", new SignatureVerificationError("mismatch", "s"), VerificationError],
	["MalformedMessageError", new MalformedMessageError("m"), VerificationError],
	["InvalidNotificationError", new InvalidNotificationError("i"), VerificationError],
	["InvalidResponseError", new InvalidResponseError("i", "excerpt", at), VerificationError],
	["ResponseTooLargeError", new ResponseTooLargeError(10, at), VerificationError],
	["ReplayRefusedError", new ReplayRefusedError("signature", "r"), VerificationError],
	["NotificationStoreError", new NotificationStoreError("s"), undefined],
	["LeaseExpiredError", new LeaseExpiredError("transaction:T:successful", 100), undefined],
];

describe("the error tree", () => {
	test.each(leaves)("%s sits on its branch only", (name, error, branch) => {
		expect(error.name).toBe(name);
		expect(error).toBeInstanceOf(GatewayError);
		expect(errors.isGatewayError(error)).toBe(true);
		for (const other of BRANCHES) expect(error instanceof other, other.name).toBe(other === branch);
	});

	test("a timeout is a connection problem", () => {
		expect(new TimeoutError("t")).toBeInstanceOf(ConnectionError);
		expect(new ConnectionError("c")).not.toBeInstanceOf(TimeoutError);
	});

	test("branches do not match their parent or each other", () => {
		expect(new GatewayError("g")).not.toBeInstanceOf(GatewayRefusalError);
		expect(new GatewayRefusalError("g")).not.toBeInstanceOf(AuthenticationError);
		expect(new InvalidInputError("i")).toBeInstanceOf(GatewayError);
		expect(new VerificationError("v")).not.toBeInstanceOf(InvalidInputError);
	});

	test("the IPN handler's HTTP rule errors stay InvalidNotificationErrors, so VerificationErrors", () => {
		expect(new HttpRuleError(413, "too large", "body")).toBeInstanceOf(VerificationError);
	});

	test("every class the package exports is on the tree above", () => {
		const classes = Object.entries(errors).filter(
			([, value]) => typeof value === "function" && value !== errors.isGatewayError,
		);
		const named = new Set([...leaves.map(([name]) => name), ...BRANCHES.map((b) => b.name), "GatewayError"]);
		expect(classes.map(([name]) => name).sort()).toEqual([...named].sort());
	});
});
