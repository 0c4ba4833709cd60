// Signing cost against raw node:crypto, for a 2048-bit key (the vector keys) and
// the vectors' checkout request and transaction IPN. Every figure is a ratio to
// its baseline, measured in this one process.
//
// Method: many short rounds (about a millisecond, shorter than a scheduler time
// slice), alternating which side runs first; the figure is the
// ratio of each side's fastest round (the cost without interference: on a shared
// machine, slower rounds mostly measure who else is running). The ratio of the
// median rounds and the median of the paired rounds' ratios are printed below it.
import crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { loadPrivateKey, loadPublicKey } from "../dist/index.js";
import { canonicalString, loadCryptoBackend, openMessage, sealMessage } from "../dist/signing/index.js";
import { compareFastest, handWritten21 } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const pem = (name) => readFileSync(new URL(`../test/vectors/keys/${name}.pem`, import.meta.url), "utf8");

const checkout = vector("checkout-request-2.0");
const ipn20 = vector("transaction-ipn-2.0");
const ipn21 = vector("transaction-ipn-2.1");

// Raw baselines get the best node:crypto can do: parsed KeyObjects, bytes and signature ready.
const merchantKeyObject = crypto.createPrivateKey(pem("merchant-private"));
const gatewayKeyObject = crypto.createPublicKey(pem("gateway-public"));
const ipn20Bytes = Buffer.from(ipn20.canonical, "utf8");
const ipn20Signature = Buffer.from(ipn20.signature, "base64");
const ipn21Envelope = JSON.parse(ipn21.message);
const ipn21Bytes = Buffer.from(ipn21Envelope.payload, "utf8");
const ipn21Signature = Buffer.from(ipn21Envelope.signature, "base64");

// The SDK gets what a merchant's code has: loaded keys, the fields, the IPN body as raw text.
const privateKey = loadPrivateKey(pem("merchant-private"));
const publicKey = loadPublicKey(pem("gateway-public"));
const ipn20Body = ipn20.message;
const ipn20Parsed = JSON.parse(ipn20Body);
const ipn21Body = ipn21.message;
const gatewayPem = pem("gateway-public");

// Sanity: the SDK and the baselines do the same work and agree.
if (
	sealMessage(checkout.input, { privateKey }).signature !==
	crypto.sign("md5", Buffer.from(checkout.canonical, "utf8"), merchantKeyObject).toString("base64")
) {
	throw new Error("SDK and raw signatures differ");
}
if (
	!crypto.verify("md5", ipn20Bytes, gatewayKeyObject, ipn20Signature) ||
	!crypto.verify("md5", ipn21Bytes, gatewayKeyObject, ipn21Signature)
) {
	throw new Error("raw verification of the vectors failed");
}
openMessage(ipn20Body, { publicKey });
openMessage(ipn21Body, { publicKey });

const slow = { iterations: 4, rounds: 201, warmup: 400 };
const fast = { iterations: 40, rounds: 301, warmup: 3000 };

// The goal: signing the checkout's fields against crypto.sign over their signed string (the same string, as text).
compareFastest(
	"sign 2.0 checkout: sealMessage vs crypto.sign of its string",
	() => crypto.sign("md5", Buffer.from(checkout.canonical, "utf8"), merchantKeyObject),
	() => sealMessage(checkout.input, { privateKey }),
	{ ...slow, goal: 1.05 },
);
// 2.0 verification has its goal against the gateway's PHP reference (php-reference.bench.mjs); this is for orientation.
compareFastest(
	"verify 2.0 IPN: openMessage(raw text, order-preserving) vs crypto.verify",
	() => crypto.verify("md5", ipn20Bytes, gatewayKeyObject, ipn20Signature),
	() => openMessage(ipn20Body, { publicKey }),
	fast,
);
compareFastest(
	"verify 2.1 IPN: openMessage(raw body) vs the floor (parse + base64 + verify + parse)",
	() => handWritten21(ipn21Body, gatewayKeyObject),
	() => openMessage(ipn21Body, { publicKey }),
	{ ...fast, goal: 1.15 },
);

// For orientation: where the 2.0 verification time goes.
compareFastest(
	"verify 2.0 IPN: openMessage(parsed object) vs crypto.verify",
	() => crypto.verify("md5", ipn20Bytes, gatewayKeyObject, ipn20Signature),
	() => openMessage(ipn20Parsed, { publicKey }),
	fast,
);
compareFastest(
	"verify 2.1 IPN: openMessage(raw body) vs crypto.verify",
	() => crypto.verify("md5", ipn21Bytes, gatewayKeyObject, ipn21Signature),
	() => openMessage(ipn21Body, { publicKey }),
	fast,
);
compareFastest(
	"sign 2.0 checkout: sealMessage vs canonicalString+crypto.sign",
	() => crypto.sign("md5", Buffer.from(canonicalString(checkout.input), "utf8"), merchantKeyObject).toString("base64"),
	() => sealMessage(checkout.input, { privateKey }),
	slow,
);

// For orientation: the cost of passing raw PEM text instead of a loaded key (cached after the first call).
compareFastest(
	"verify 2.1 IPN: raw PEM string key vs loaded PublicKey",
	() => openMessage(ipn21Body, { publicKey }),
	() => openMessage(ipn21Body, { publicKey: gatewayPem }),
	{ ...fast },
);

await loadCryptoBackend("forge");
compareFastest(
	"sign 2.0 checkout: forge backend vs node backend",
	() => sealMessage(checkout.input, { privateKey, backend: "node" }),
	() => sealMessage(checkout.input, { privateKey, backend: "forge" }),
	{ iterations: 4, rounds: 5, warmup: 2 },
);
compareFastest(
	"verify 2.1 IPN: forge backend vs node backend",
	() => openMessage(ipn21Body, { publicKey, backend: "node" }),
	() => openMessage(ipn21Body, { publicKey, backend: "forge" }),
	{ iterations: 40, rounds: 7, warmup: 10 },
);
