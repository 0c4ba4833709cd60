import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeBlocks, readDoc } from "../support/markdown.js";
import { consumerProject, DEPENDENCIES, packedPackage } from "../support/packed.js";
import { freePort } from "../support/real-servers.js";
import { vector } from "../support/vectors.js";

// The README's quick start, run as a newcomer runs it: its `// file:` blocks in a fresh project that installs
// the packed package and express, the sandbox started by the README's command, the shop by the README's
// shell lines (environment included), then a buyer who pays on the hosted page and a merchant who refunds,
// twice on one sandbox and once more after the sandbox restarted on its state directory.

const README = readDoc("README.md");
const blocks = codeBlocks(README);
const FILE_NAME = /^\/\/ file: ([\w./-]+\.ts)\s*$/;
const files = blocks.flatMap((block) => {
	const name = FILE_NAME.exec(block.code.split("\n")[0] ?? "")?.[1];
	return block.language === "ts" && name !== undefined ? [{ name, code: block.code }] : [];
});
const shell = blocks.filter((block) => block.language === "sh").map((block) => block.code);
const sandboxBlock = shell.find((code) => code.includes("merchant-gateway sandbox --"));
const shopBlock = shell.find((code) => /^node server\.ts$/m.test(code));

/**
 * Test-only routes beside the README's server: what the shop's IPN callbacks stored, and its database taken
 * down and back up (writes to its tables throw while it is down, as a database outage does).
 */
const INSPECT = `import "./server.ts";
import { app } from "./checkout.ts";
import { paidOrders, refunds } from "./ipn.ts";

app.get("/__inspect", (_req, res) => {
	res.json({ paidOrders: Object.fromEntries(paidOrders), refunds: Object.fromEntries(refunds) });
});

let databaseDown = false;
for (const table of [paidOrders, refunds]) {
	const save = table.set.bind(table);
	table.set = (key, value) => {
		if (databaseDown) throw new Error("database unavailable");
		return save(key, value);
	};
}
app.post("/__database/:state", (req, res) => {
	databaseDown = req.params.state === "down";
	res.end();
});
`;

interface ShopState {
	paidOrders: Record<string, string>;
	refunds: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` returns a value (not undefined), or fails with what it last saw. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, seconds = 30): Promise<T> {
	const deadline = Date.now() + seconds * 1000;
	let last: unknown;
	while (Date.now() < deadline) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			last = error;
		}
		await sleep(100);
	}
	throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/** The first form of a hosted page, posted as a browser posts it: its hidden fields plus `fields`. */
async function submitForm(pageUrl: string, fields: Record<string, string>): Promise<Response> {
	const page = await fetch(pageUrl);
	expect(page.status).toBe(200);
	const html = await page.text();
	const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
	if (!form) throw new Error(`No form on ${pageUrl}: ${html.slice(0, 500)}`);
	const body = new URLSearchParams();
	for (const hidden of (form[2] ?? "").matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
		body.set(hidden[1] ?? "", hidden[2] ?? "");
	}
	for (const [name, value] of Object.entries(fields)) body.set(name, value);
	return fetch(new URL(form[1] ?? "", pageUrl), { method: "POST", body, redirect: "manual" });
}

function locationOf(response: Response): string {
	expect(response.status, `a redirect, not ${response.status}`).toBeGreaterThanOrEqual(300);
	expect(response.status).toBeLessThan(400);
	return response.headers.get("location") ?? "";
}

describe("the README's quick start, run against the sandbox as the README says", () => {
	const children: ChildProcess[] = [];
	const output = { sandbox: "", shop: "" };
	let cleanup = () => {};
	let shopUrl = "";
	let sandboxUrl = "";
	let project = "";
	/** The README's command that starts the sandbox, as this test runs it (ports swapped, the bin run directly). */
	let sandboxCommand = "";
	let sandboxProcess: ChildProcess | undefined;

	const run = (name: keyof typeof output, script: string, cwd: string) => {
		const binDir = join(cwd, "node_modules", ".bin");
		const env = { ...process.env, PATH: `${binDir}:${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
		const child = spawn("bash", ["-euc", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
		child.stdout?.on("data", (chunk: Buffer) => {
			output[name] += chunk.toString();
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			output[name] += chunk.toString();
		});
		children.push(child);
		return child;
	};
	const state = async (): Promise<ShopState> => (await fetch(`${shopUrl}/__inspect`)).json() as Promise<ShopState>;

	beforeAll(async () => {
		expect(sandboxBlock, "the README's command that starts the sandbox").toBeDefined();
		expect(shopBlock, "the README's shell lines that start the shop with `node server.ts`").toBeDefined();
		const packed = await packedPackage();
		const made = consumerProject(packed.tarball, {
			packages: [...DEPENDENCIES, "express"],
			packageJson: { type: "module" },
		});
		cleanup = made.cleanup;
		project = made.dir;
		for (const file of files) writeFileSync(join(project, file.name), `${file.code}\n`);
		writeFileSync(join(project, "inspect.ts"), INSPECT);

		// The README's ports, swapped for free ones; every other word of its lines runs as written.
		const [sandboxPort, shopPort] = [await freePort(), await freePort()];
		const ports = (code: string) =>
			code.replace(/\b8080\b/g, String(sandboxPort)).replace(/\b3000\b/g, String(shopPort));
		sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
		shopUrl = `http://127.0.0.1:${shopPort}`;
		const sandboxLine = ports(sandboxBlock ?? "")
			.split("\n")
			.find((line) => line.includes("merchant-gateway sandbox"));
		// `npx` finds the package's bin in node_modules/.bin; run it straight from there (no registry).
		sandboxCommand = (sandboxLine ?? "").replace(/\s+#.*$/, "").replace(/^npx /, "exec ");
		sandboxProcess = run("sandbox", sandboxCommand, project);
		// The key files the README's shop lines read (`$(cat <file>)`) exist once the sandbox has started.
		const keyFiles = [...(shopBlock ?? "").matchAll(/\$\(cat (\S+)\)/g)].map((match) => match[1] ?? "");
		expect(keyFiles.length, "the README's shop lines read the sandbox's key files").toBeGreaterThan(0);
		await until("the sandbox's keys and port", async () => {
			if (!keyFiles.every((file) => existsSync(join(project, file)))) return undefined;
			return (await fetch(sandboxUrl)).status > 0 ? true : undefined;
		});
		// The README's shell lines for the shop; only the entry point changes, to one that also serves /__inspect.
		run("shop", ports(shopBlock ?? "").replace(/^node server\.ts$/m, "exec node inspect.ts"), project);
		await until("the shop to listen", async () => ((await fetch(`${shopUrl}/__inspect`)).ok ? true : undefined));
	}, 300_000);

	afterAll(() => {
		for (const child of children) child.kill("SIGTERM");
		cleanup();
	});

	/**
	 * The quick start's four steps: the shop creates a checkout, the buyer pays with the README's test card and
	 * lands on the return page, the IPN stores the order, and a refund follows with its own IPN.
	 */
	async function checkoutToRefund(): Promise<{ orderRef: string; transactionId: string }> {
		const before = Object.keys((await state()).paidOrders);
		// 1. The shop creates a checkout and sends the buyer to the hosted page.
		const pay = await fetch(`${shopUrl}/pay`, { method: "POST", redirect: "manual" });
		expect(pay.status, await pay.clone().text()).toBe(303);
		const paymentLink = locationOf(pay);
		expect(paymentLink.startsWith(sandboxUrl)).toBe(true);

		// The buyer pays with the README's test card; the page sends them back to the shop's return page.
		const paid = await submitForm(paymentLink, {
			cardName: "Ada Lovelace",
			cardNumber: "4242 4242 4242 4242",
			cardExpiry: "12/30",
			cardSecurityCode: "123",
			action: "pay",
		});
		const returnUrl = locationOf(paid);
		expect(returnUrl.startsWith(`${shopUrl}/pay/return?`)).toBe(true);

		// 2. The IPN reaches /pay/ipn; the shop's onTransaction stores the order, once.
		const added = await until("the transaction IPN", async () => {
			const orders = Object.entries((await state()).paidOrders).filter(([ref]) => !before.includes(ref));
			return orders.length > 0 ? orders : undefined;
		});
		expect(added).toHaveLength(1);
		const [[orderRef, transactionId]] = added as [[string, string]];
		// The sandbox logs a delivery once the shop has responded, which can be after the callback stored the order.
		const deliveryLines = () =>
			output.sandbox.split("\n").filter((line) => line.includes("/pay/ipn") && line.includes(transactionId));
		await until("the sandbox's log of the delivery", async () => (deliveryLines().length > 0 ? true : undefined));
		expect(deliveryLines()).toHaveLength(1);

		// 3. The return page resolves the signed callback.
		const page = await fetch(returnUrl);
		expect(page.status).toBe(200);
		expect(await page.text()).toBe(`Thank you! Order ${orderRef} is paid.`);

		// 4. The refund after the IPN; its own IPN follows.
		const refund = await fetch(`${shopUrl}/orders/${orderRef}/refund`, { method: "POST" });
		const refundText = await refund.text();
		expect(refund.status, refundText).toBe(200);
		const refundId = /^Refund (\S+): processed$/.exec(refundText)?.[1];
		expect(refundId, refundText).toBeDefined();
		const refundStatus = await until("the refund IPN", async () => (await state()).refunds[refundId ?? ""]);
		expect(refundStatus).toBe("refund_successful");
		return { orderRef, transactionId };
	}

	it("checkout, IPN, return page and a refund after the IPN, twice: each order its own reference", {
		timeout: 120_000,
	}, async () => {
		try {
			const first = await checkoutToRefund();
			const second = await checkoutToRefund();
			expect(second.orderRef).not.toBe(first.orderRef);
			expect(second.transactionId).not.toBe(first.transactionId);
		} catch (error) {
			throw new Error(`${String(error)}\n--- sandbox\n${output.sandbox}\n--- shop\n${output.shop}`);
		}
	});

	it("an IPN the shop cannot verify is logged by the README's onError", { timeout: 60_000 }, async () => {
		// Signed by a gateway key other than this sandbox's: what a wrong GATEWAY_PUBLIC_KEY looks like to the shop.
		const foreign = vector("transaction-ipn-2.0").message ?? "";
		const response = await fetch(`${shopUrl}/pay/ipn`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: foreign,
		});
		expect(response.status).toBe(401);
		const logged = await until("the shop's log of the refused IPN", async () =>
			output.shop.split("\n").find((line) => line.includes("answered HTTP 401")),
		);
		expect(logged).toMatch(
			/^IPN \(not verified\) answered HTTP 401: SignatureVerificationError: The signature does not/,
		);
	});

	it("a callback that failed is listed and replayed through the README's admin routes", {
		timeout: 60_000,
	}, async () => {
		try {
			// A second partial refund of the order paid above, while the shop's database is down.
			const [orderRef] = Object.keys((await state()).paidOrders);
			expect(orderRef, "an order paid by the test above").toBeDefined();
			await fetch(`${shopUrl}/__database/down`, { method: "POST" });
			const refund = await fetch(`${shopUrl}/orders/${orderRef}/refund`, { method: "POST" });
			const refundText = await refund.text();
			expect(refund.status, refundText).toBe(200);
			const refundId = /^Refund (\S+): processed$/.exec(refundText)?.[1] ?? "";

			// The callback throws: the route answers with an error and the store keeps the event as failed.
			type Listed = Array<{ eventId: string; attempts: number; lastError: string }>;
			const listed = await until("the failed event in the admin list", async () => {
				const events = (await (await fetch(`${shopUrl}/admin/failed-events`)).json()) as Listed;
				return events.length > 0 ? events : undefined;
			});
			expect(listed).toEqual([
				{
					eventId: `refund:${refundId.toLowerCase()}:refund_successful`,
					attempts: 1,
					lastError: "Error: database unavailable",
				},
			]);
			expect((await state()).refunds[refundId]).toBeUndefined();

			// Fixed, then replayed: the callback stores the refund, and the list is empty.
			await fetch(`${shopUrl}/__database/up`, { method: "POST" });
			const replayUrl = `${shopUrl}/admin/failed-events/${listed[0]?.eventId}/replay`;
			expect(await (await fetch(replayUrl, { method: "POST" })).json()).toEqual({ result: "processed" });
			expect((await state()).refunds[refundId]).toBe("refund_successful");
			expect(await (await fetch(`${shopUrl}/admin/failed-events`)).json()).toEqual([]);
			expect(await (await fetch(replayUrl, { method: "POST" })).json()).toEqual({ result: "not_found" });
		} catch (error) {
			throw new Error(`${String(error)}\n--- sandbox\n${output.sandbox}\n--- shop\n${output.shop}`);
		} finally {
			await fetch(`${shopUrl}/__database/up`, { method: "POST" });
		}
	});

	it("the S2S card charge with 3-D Secure", { timeout: 60_000 }, async () => {
		try {
			const before = Object.keys((await state()).paidOrders);
			const charge = await fetch(`${shopUrl}/pay/card`, {
				method: "POST",
				headers: { "content-type": "application/json", accept: "text/html", "user-agent": "Mozilla/5.0" },
				body: JSON.stringify({
					cardNumber: "4000000000000036",
					cardMonth: "12",
					cardYear: "30",
					cardSecurityCode: "123",
				}),
				redirect: "manual",
			});
			const challenge = locationOf(charge);
			expect(challenge.startsWith(`${sandboxUrl}/3ds/`)).toBe(true);
			const authenticated = await submitForm(challenge, { password: "123456" });
			const returnUrl = locationOf(authenticated);
			expect(returnUrl.startsWith(`${shopUrl}/pay/return?`)).toBe(true);

			const orderRef = await until("the card charge's IPN", async () => {
				const added = Object.keys((await state()).paidOrders).filter((ref) => !before.includes(ref));
				return added[0];
			});
			const page = await fetch(returnUrl);
			expect(await page.text()).toBe(`Thank you! Order ${orderRef} is paid.`);
		} catch (error) {
			throw new Error(`${String(error)}\n--- sandbox\n${output.sandbox}\n--- shop\n${output.shop}`);
		}
	});
	it("a checkout that fails shows the shop's page; after a restart on --state-dir the flow runs again", {
		timeout: 120_000,
	}, async () => {
		try {
			// The sandbox stops: the shop's checkout cannot reach it.
			const stopped = sandboxProcess;
			const exited = new Promise((resolve) => stopped?.once("exit", resolve));
			stopped?.kill("SIGTERM");
			await exited;
			const failed = await fetch(`${shopUrl}/pay`, { method: "POST", redirect: "manual" });
			expect(failed.status).toBe(502);
			const page = await failed.text();
			expect(page).toBe("Sorry, the payment could not be started. Please try again in a moment.");
			expect(page).not.toMatch(/\bat \S+ \(/);
			await until("the shop's log of the failed checkout", async () =>
				/Checkout of order ORD-\S+ failed: ConnectionError/.test(output.shop) ? true : undefined,
			);

			// Started again by the README's command: the same keys, the orders it kept, a new order that goes through.
			sandboxProcess = run("sandbox", sandboxCommand, project);
			await until("the sandbox to listen again", async () => ((await fetch(sandboxUrl)).status > 0 ? true : undefined));
			await checkoutToRefund();
		} catch (error) {
			throw new Error(`${String(error)}\n--- sandbox\n${output.sandbox}\n--- shop\n${output.shop}`);
		}
	});
});
