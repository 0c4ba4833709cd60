import { describe, expect, test } from "vitest";
import { useGateway } from "./gateway.js";
import { checkoutParams, makeClient } from "./helpers.js";

/**
 * The gateway's documents write endpoints as `https://host/v2/checkout`, so merchants often configure
 * `https://host/v2`. The client adds `/v2` itself and takes such a base URL without it: the first call
 * reaches `/v2/checkout`, never `/v2/v2/checkout` ("No such endpoint").
 */

const gateway = useGateway();

describe("a baseUrl that already ends in /v2", () => {
	test.each(["/v2", "/v2/", "/v2//"])("%s: the first call reaches /v2/checkout over HTTP", async (suffix) => {
		const client = gateway.client({ baseUrl: `${gateway.baseUrl}${suffix}` });
		await expect(client.checkout.create(checkoutParams())).resolves.toMatchObject({
			paymentLink: expect.any(String),
		});
		expect(gateway.received().map((request) => request.path)).toEqual(["/v2/checkout"]);
		expect(client.toJSON().baseUrl).toBe(gateway.baseUrl);
	});

	test("a path before /v2 is kept; the DIRECT_POST form's action has /v2 once", () => {
		const client = makeClient({ baseUrl: "https://gateway.test/pay/v2/" });
		expect(client.checkout.directPost(checkoutParams()).action).toBe("https://gateway.test/pay/v2/checkout");
		expect(client.toJSON().baseUrl).toBe("https://gateway.test/pay");
	});

	test("only a whole trailing /v2 segment is taken off", () => {
		expect(makeClient({ baseUrl: "https://gateway.test/apiv2" }).toJSON().baseUrl).toBe("https://gateway.test/apiv2");
		expect(makeClient({ baseUrl: "https://gateway.test/v2/x" }).toJSON().baseUrl).toBe("https://gateway.test/v2/x");
	});
});
