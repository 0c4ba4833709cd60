// What a merchant does with the built package, run unchanged in Node, Bun, Deno and workerd
// (test/runtimes/*.test.ts). Plain JavaScript that imports `merchant-gateway` by name, as an
// installed package; it reports what happened and the tests judge it.

/** Every entry point, each imported on its own so one that cannot load does not hide the others. */
const ENTRIES = {
	"merchant-gateway": () => import("merchant-gateway"),
	"merchant-gateway/signing": () => import("merchant-gateway/signing"),
	"merchant-gateway/testing": () => import("merchant-gateway/testing"),
	"merchant-gateway/testing/msw": () => import("merchant-gateway/testing/msw"),
	"merchant-gateway/stores/redis": () => import("merchant-gateway/stores/redis"),
	"merchant-gateway/stores/postgres": () => import("merchant-gateway/stores/postgres"),
};

/** An error as data, its causes included (what a runtime refused shows there). */
const describeError = (error) => ({
	name: error?.name ?? typeof error,
	message: String(error?.message ?? error),
	...(error?.cause === undefined ? {} : { cause: describeError(error.cause) }),
});

/** JSON text with object keys sorted, so two values compare whatever their key order. */
function sortedJson(value) {
	return JSON.stringify(value, (_key, item) =>
		item && typeof item === "object" && !Array.isArray(item)
			? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: item,
	);
}

/** What a verifier hands out for a vector: `fields` (2.0) or `input` (2.1). */
const expectedOf = (vector) => (vector.fields === undefined ? vector.input : JSON.parse(vector.fields));

/**
 * `input`: `{ vectors, keys: { merchantPrivate, merchantPublic, gatewayPrivate, gatewayPublic },
 * sandbox?: { url, merchantId } }`, the sandbox being a server the test started on loopback.
 */
export async function runScenario(input) {
	const report = { entries: {}, backend: {}, signed: [], verified: [], handler: [], client: undefined };
	const modules = {};
	for (const [name, load] of Object.entries(ENTRIES)) {
		try {
			modules[name] = await load();
			report.entries[name] = { loaded: true, exports: Object.keys(modules[name]).sort() };
		} catch (error) {
			report.entries[name] = { loaded: false, error: describeError(error) };
		}
	}
	const sdk = modules["merchant-gateway"];
	const signing = modules["merchant-gateway/signing"];
	if (!sdk || !signing) return report;
	const { keys, vectors } = input;

	// Where node:crypto is missing, the first key load says what to do; the scenario then does it.
	report.backend.nodeCrypto = typeof globalThis.process?.getBuiltinModule === "function";
	try {
		sdk.loadPublicKey(keys.gatewayPublic);
		report.backend.setUpNeeded = false;
	} catch (error) {
		report.backend.setUpNeeded = true;
		report.backend.error = describeError(error);
		await signing.useCryptoBackend();
	}

	for (const vector of vectors.filter((v) => v.signer === "merchant")) {
		try {
			if (vector.kind === "sign20") {
				const object = JSON.parse(vector.inputText);
				const sealed = signing.sealMessage(object, { privateKey: keys.merchantPrivate });
				report.signed.push({
					name: vector.name,
					canonical: signing.canonicalString(object) === vector.canonical,
					signature: sealed.signature === vector.signature,
					body: JSON.stringify(sealed) === vector.message,
				});
			} else if (vector.kind === "seal21") {
				const sealed = signing.sealMessage(vector.input, { privateKey: keys.merchantPrivate, signVersion: "2.1" });
				const opened = signing.openMessage(sealed, { publicKey: keys.merchantPublic });
				report.signed.push({
					name: vector.name,
					payload: sealed.payload === JSON.stringify(vector.input),
					opens: sortedJson(opened) === sortedJson(vector.input),
				});
			}
		} catch (error) {
			report.signed.push({ name: vector.name, error: describeError(error) });
		}
	}

	const gatewayPublicKey = keys.gatewayPublic;
	for (const vector of vectors.filter((v) => v.signer === "gateway")) {
		const entry = { name: vector.name, kind: vector.kind };
		try {
			if (vector.name.includes("-ipn-")) {
				const event = sdk.verifyNotification(vector.message, { gatewayPublicKey });
				const resource = event.type === "refund" ? event.refund : event.transaction;
				entry.eventId = event.eventId;
				entry.matches = Object.entries(expectedOf(vector)).every(
					([key, value]) => sortedJson(resource[key]) === sortedJson(value),
				);
			} else if (vector.kind.startsWith("callback")) {
				const result = sdk.decodeCallback(vector.url, { gatewayPublicKey });
				entry.matches = sortedJson(result) === sortedJson(expectedOf(vector));
			} else {
				const opened = signing.openMessage(vector.message, { publicKey: gatewayPublicKey });
				entry.matches = sortedJson(opened) === sortedJson(expectedOf(vector));
			}
		} catch (error) {
			entry.error = describeError(error);
		}
		// The same message checked with the merchant's key must be refused.
		try {
			if (vector.kind.startsWith("callback")) sdk.decodeCallback(vector.url, { gatewayPublicKey: keys.merchantPublic });
			else signing.openMessage(vector.message, { publicKey: keys.merchantPublic });
			entry.otherKey = "accepted";
		} catch (error) {
			entry.otherKey = error?.name;
		}
		report.verified.push(entry);
	}

	report.handler = await respondToIpns(sdk, vectors, gatewayPublicKey);
	if (input.sandbox) report.client = await callSandbox(sdk, input.sandbox, keys);
	return report;
}

/** Each IPN vector POSTed to the handler as the raw body the gateway sent, then once more, then tampered. */
async function respondToIpns(sdk, vectors, gatewayPublicKey) {
	const received = [];
	let handler;
	const post = async (body) => {
		const response = await handler(
			new Request("https://shop.example/ipn", {
				method: "POST",
				headers: { "content-type": "application/json" },
				body,
			}),
		);
		const text = await response.text();
		return { status: response.status, returnCode: JSON.parse(text).returnCode, received: received.splice(0) };
	};
	const results = [];
	for (const vector of vectors.filter((v) => v.name.includes("-ipn-"))) {
		// A handler (and its memory store) per vector: the 2.0 and 2.1 IPNs of the vectors are the same event.
		handler = sdk.createNotificationHandler({
			gatewayPublicKey,
			onTransaction: (transaction) => void received.push(`transaction ${transaction.transactionId}`),
			onRefund: (refund) => void received.push(`refund ${refund.refundId}`),
		});
		try {
			const { ref } = expectedOf(vector);
			const tampered = vector.message.replaceAll(ref, `${ref}X`);
			results.push({
				name: vector.name,
				first: await post(vector.message),
				again: await post(vector.message),
				tampered: tampered === vector.message ? undefined : await post(tampered),
			});
		} catch (error) {
			results.push({ name: vector.name, error: describeError(error) });
		}
	}
	return results;
}

/** One checkout created through the client against the sandbox server, then read back. */
async function callSandbox(sdk, sandbox, keys) {
	try {
		const client = new sdk.GatewayClient({
			baseUrl: sandbox.url,
			merchantId: sandbox.merchantId,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
		});
		const shop = "https://shop.example";
		const session = await client.checkout.create({
			orderRef: `runtime-${Date.now()}-${Math.random().toString(36).slice(2)}`,
			amount: 12.5,
			currency: "EUR",
			paymentMethod: "checkout",
			orderDescription: "Runtime check",
			callbackUrl: `${shop}/callback`,
			notificationUrl: `${shop}/ipn`,
			cancelUrl: `${shop}/cancel`,
			errorUrl: `${shop}/error`,
		});
		const transaction = await client.transactions.retrieve(session.transactionId);
		return {
			transactionId: session.transactionId,
			paymentLink: session.paymentLink,
			status: transaction.status,
			amount: transaction.amount,
		};
	} catch (error) {
		return { error: describeError(error) };
	}
}
