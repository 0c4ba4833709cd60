import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { openMessage, sealMessage } from "../../../src/signing/index.js";
import { startSandboxServer } from "../../../src/testing.js";
import { keys } from "../../support/vectors.js";
import { ack, cardFields, checkoutFields, postForm, type Receiver, tokenOf } from "../helpers.js";
import { MODEL_CONTROL_TOKEN, MODEL_MERCHANTS, modelServerOptions } from "./model-options.js";

/**
 * The model test's operations and their runner. A sequence runs against a sandbox over HTTP (the API, the
 * hosted pages, the control API), optionally stopped and started again (or killed with SIGKILL) before
 * chosen steps; what it answered at each step and every view at the end come back with ids replaced by
 * their order of creation, so two runs of one sequence compare equal when the sandbox kept its books.
 */

type MerchantKind = keyof typeof MODEL_MERCHANTS;
const CARDS = {
	approved: "4242424242424242",
	declined: "4000000000000028",
	threeDs: "4000000000000036",
	pendingApproved: "4000000000000044",
	pendingDeclined: "4000000000000085",
} as const;
type Card = keyof typeof CARDS;

export type Op =
	| { kind: "create"; merchant: MerchantKind; amountMinor: number }
	| { kind: "charge"; merchant: MerchantKind; amountMinor: number; card: Card }
	| { kind: "pay"; t: number; card: "approved" | "declined" | "threeDs" }
	| { kind: "threeDs"; t: number; pass: boolean }
	| { kind: "refund"; t: number; amountMinor: number }
	| { kind: "decide"; r: number; approve: boolean }
	| { kind: "ipn"; acknowledge: boolean }
	| { kind: "resend"; t: number; ofRefund: boolean }
	| { kind: "advance"; ms: number };

const merchantKind = fc.constantFrom<MerchantKind>("auto", "manual");
const amount = fc.constantFrom(1050, 2000, 399);
const index = fc.nat({ max: 7 });

export const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
	{ arbitrary: fc.record({ kind: fc.constant("create"), merchant: merchantKind, amountMinor: amount }), weight: 3 },
	{
		arbitrary: fc.record({
			kind: fc.constant("charge"),
			merchant: merchantKind,
			amountMinor: amount,
			card: fc.constantFrom<Card>("approved", "approved", "declined", "threeDs", "pendingApproved", "pendingDeclined"),
		}),
		weight: 3,
	},
	{
		arbitrary: fc.record({
			kind: fc.constant("pay"),
			t: index,
			card: fc.constantFrom("approved" as const, "declined" as const, "threeDs" as const),
		}),
		weight: 3,
	},
	{ arbitrary: fc.record({ kind: fc.constant("threeDs"), t: index, pass: fc.boolean() }), weight: 2 },
	{
		arbitrary: fc.record({ kind: fc.constant("refund"), t: index, amountMinor: fc.constantFrom(250, 500, 1050, 100) }),
		weight: 5,
	},
	{ arbitrary: fc.record({ kind: fc.constant("decide"), r: index, approve: fc.boolean() }), weight: 3 },
	{ arbitrary: fc.record({ kind: fc.constant("ipn"), acknowledge: fc.boolean() }), weight: 2 },
	{ arbitrary: fc.record({ kind: fc.constant("resend"), t: index, ofRefund: fc.boolean() }), weight: 1 },
	{
		arbitrary: fc.record({
			kind: fc.constant("advance"),
			ms: fc.constantFrom(10_000, 31 * 60_000, 2 * 3_600_000, 3 * 86_400_000),
		}),
		weight: 2,
	},
);

/** A sandbox to drive: its origin, a wait until its IPNs and saves are done, a restart or a kill. */
interface ModelSandbox {
	url: string;
	settle(): Promise<void>;
	stop(how: "close" | "kill"): Promise<void>;
}

async function inProcess(stateDir: string): Promise<ModelSandbox> {
	const server = await startSandboxServer(modelServerOptions(stateDir));
	return {
		url: server.url,
		settle: () => server.sandbox.whenIdle(),
		stop: () => server.close(),
	};
}

const hook = fileURLToPath(new URL("../../cli/ts-resolve-hook.mjs", import.meta.url));
const childMain = fileURLToPath(new URL("./model-child.ts", import.meta.url));

async function inChild(stateDir: string): Promise<ModelSandbox> {
	const child: ChildProcess = fork(childMain, [], {
		execArgv: ["--import", hook],
		env: { ...process.env, MODEL_STATE_DIR: stateDir },
		stdio: ["ignore", "ignore", "inherit", "ipc"],
	});
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	const next = () =>
		new Promise<Record<string, unknown>>((resolve, reject) => {
			child.once("message", (message) => resolve(message as Record<string, unknown>));
			child.once("exit", (code, signal) => reject(new Error(`the model sandbox ended (${code ?? signal})`)));
		});
	const hello = await next();
	return {
		url: `http://127.0.0.1:${String(hello.port)}`,
		settle: async () => {
			const answer = next();
			child.send("settle");
			await answer;
		},
		stop: async (how) => {
			child.kill(how === "kill" ? "SIGKILL" : "SIGTERM");
			await exited;
		},
	};
}

/** How a run treats the restarts of its sequence. */
export type RestartMode = "none" | "in-process" | "sigkill";

interface Created {
	id: string;
	link: string | undefined;
	threeDs: string | undefined;
}

/** What one run of a sequence answered and showed, ids replaced by their order of creation. */
export interface RunResult {
	steps: unknown[];
	views: unknown;
}

/**
 * Runs `ops` on a new sandbox on `stateDir`, restarting it before each step in `restartBefore` (in this
 * process, or as a child process killed with SIGKILL once its answers are on disk).
 */
export async function runSequence(
	ops: readonly Op[],
	restartBefore: ReadonlySet<number>,
	mode: RestartMode,
	stateDir: string,
	receiver: Receiver,
	receiverMode: { acknowledge: boolean },
): Promise<RunResult> {
	receiver.ipns.length = 0;
	receiverMode.acknowledge = true;
	const start = mode === "sigkill" ? inChild : inProcess;
	let sandbox = await start(stateDir);
	const transactions: Created[] = [];
	const refunds: string[] = [];
	const steps: unknown[] = [];
	try {
		for (const [step, op] of ops.entries()) {
			if (mode !== "none" && restartBefore.has(step)) {
				await sandbox.settle();
				await sandbox.stop(mode === "sigkill" ? "kill" : "close");
				sandbox = await start(stateDir);
			}
			steps.push(await perform(sandbox.url, op, receiver, receiverMode, transactions, refunds));
			await sandbox.settle();
		}
		const views = await viewsOf(sandbox.url, transactions, refunds, receiver);
		return normalize({ steps, views }, transactions, refunds, receiver.url);
	} finally {
		await sandbox.stop("close");
	}
}

const pick = <T>(items: readonly T[], i: number): T | undefined =>
	items.length === 0 ? undefined : items[i % items.length];

async function perform(
	url: string,
	op: Op,
	receiver: Receiver,
	receiverMode: { acknowledge: boolean },
	transactions: Created[],
	refunds: string[],
): Promise<unknown> {
	switch (op.kind) {
		case "create": {
			const fields = checkoutFields(receiver.url, {
				merchantId: MODEL_MERCHANTS[op.merchant],
				orderRef: `ORD-${transactions.length}`,
				amount: op.amountMinor / 100,
			});
			const answer = await api(url, "/v2/checkout", fields);
			const id = answer.fields.transactionId;
			if (typeof id === "string")
				transactions.push({ id, link: String(answer.fields.paymentLink), threeDs: undefined });
			return answer;
		}
		case "charge": {
			const fields = cardFields(receiver.url, CARDS[op.card], {
				merchantId: MODEL_MERCHANTS[op.merchant],
				orderRef: `ORD-${transactions.length}`,
				amount: op.amountMinor / 100,
			});
			const answer = await api(url, "/v2/card/api", fields);
			// A declined charge is a transaction too: its refusal names it.
			const data = (answer.fields.data ?? {}) as Record<string, unknown>;
			const id = answer.fields.transactionId ?? data.transactionId;
			const redirect = answer.fields.url;
			if (typeof id === "string")
				transactions.push({ id, link: undefined, threeDs: typeof redirect === "string" ? redirect : undefined });
			return answer;
		}
		case "pay": {
			const session = pick(
				transactions.filter((t) => t.link),
				op.t,
			);
			if (!session?.link) return "no session";
			const token = tokenOf(session.link);
			const form = { token, action: "pay", cardNumber: CARDS[op.card], cardExpiry: "12/30", cardSecurityCode: "123" };
			const answer = await postForm(`${url}/pay/${session.id}`, { ...form, cardName: "Ada" });
			const location = answer.location === null ? undefined : new URL(answer.location, url);
			if (location?.pathname.startsWith("/3ds/")) session.threeDs = location.href;
			return { status: answer.status, to: location ? location.pathname : undefined };
		}
		case "threeDs": {
			const charge = pick(
				transactions.filter((t) => t.threeDs),
				op.t,
			);
			if (!charge?.threeDs) return "no 3-D Secure";
			const token = tokenOf(charge.threeDs);
			const answer = await postForm(`${url}/3ds/${charge.id}`, { token, result: op.pass ? "pass" : "fail" });
			return { status: answer.status, to: answer.location ? new URL(answer.location, url).pathname : undefined };
		}
		case "refund": {
			const paid = pick(transactions, op.t);
			if (!paid) return "no transaction";
			const answer = await api(url, "/v2/refund", { transactionId: paid.id, amount: op.amountMinor / 100 });
			const id = answer.fields.refundId;
			if (typeof id === "string") refunds.push(id);
			return answer;
		}
		case "decide": {
			const refund = pick(refunds, op.r);
			if (!refund) return "no refund";
			return control(url, "POST", `/refunds/${refund}/${op.approve ? "approve" : "reject"}`, {});
		}
		case "ipn":
			receiverMode.acknowledge = op.acknowledge;
			return op.acknowledge ? "acknowledging" : "refusing";
		case "resend": {
			const id = op.ofRefund ? pick(refunds, op.t) : pick(transactions, op.t)?.id;
			if (!id) return "nothing to resend";
			return control(url, "POST", "/ipn/resend", { id });
		}
		case "advance":
			return control(url, "POST", "/clock/advance", { ms: op.ms });
	}
}

/** An API call as the merchant signs it: the status and the fields (verified when signed). */
async function api(url: string, path: string, request: Record<string, unknown>) {
	const body = sealMessage(request, { privateKey: keys.merchantPrivate, signVersion: "2.0" });
	const response = await fetch(`${url}${path}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	const json = (await response.json()) as Record<string, unknown>;
	const data = (json.data ?? {}) as Record<string, unknown>;
	// A signed answer is verified; its fields are what the merchant reads.
	const fields = typeof data.signature === "string" ? openMessage(json, { publicKey: keys.gatewayPublic }) : json;
	return { status: response.status, fields };
}

async function control(url: string, method: "GET" | "POST", path: string, body?: Record<string, unknown>) {
	const response = await fetch(`${url}/control${path}`, {
		method,
		headers: { authorization: `Bearer ${MODEL_CONTROL_TOKEN}`, "content-type": "application/json" },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	return { status: response.status, json: (await response.json()) as unknown };
}

/**
 * Every view at the end: the control API's transactions with their refunds and its IPN deliveries, each
 * transaction and refund as the query endpoints answer, the refundable amount (the refusal of a refund of
 * more than any payment names it), and the IPNs the merchant received.
 */
async function viewsOf(url: string, transactions: Created[], refunds: string[], receiver: Receiver) {
	const queried = [];
	for (const { id } of transactions) {
		const query = await api(url, "/v2/checkout/query", { transactionId: id });
		const refundable = await api(url, "/v2/refund", { transactionId: id, amount: 100_000 });
		queried.push({ query, refundable });
	}
	const refundQueries = [];
	for (const refundId of refunds) refundQueries.push(await api(url, "/v2/refund/query", { refundId }));
	return {
		transactions: await control(url, "GET", "/transactions"),
		deliveries: await control(url, "GET", "/ipn/deliveries?limit=1000"),
		queried,
		refundQueries,
		ipns: receiver.ipns.map((ipn) => {
			const { signature: _signature, ...fields } = JSON.parse(ipn.body) as Record<string, unknown>;
			return fields;
		}),
	};
}

/** Ids by their order of creation, page tokens and signatures masked, the receiver's address named. */
function normalize(result: RunResult, transactions: Created[], refunds: string[], receiverUrl: string): RunResult {
	let text = JSON.stringify(result);
	transactions.forEach(({ id }, i) => {
		text = text.replaceAll(id, `T${i}`);
	});
	refunds.forEach((id, i) => {
		text = text.replaceAll(id, `R${i}`);
	});
	text = text
		.replaceAll(receiverUrl, "RECEIVER")
		.replace(/token=[0-9a-f]{32}/g, "token=TOKEN")
		.replace(/"signature":"[^"]*"/g, '"signature":"SIGNED"')
		.replace(/http:\/\/127\.0\.0\.1:\d+/g, "SANDBOX");
	// Members in one order: a record read back from disk lists them in its schema's order.
	return JSON.parse(text, (_key, value: unknown) =>
		value && typeof value === "object" && !Array.isArray(value)
			? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
			: value,
	) as RunResult;
}

/** The merchant's IPN answer while `mode.acknowledge` is false: HTTP 500. */
export function modelIpnAnswer(mode: { acknowledge: boolean }): { status: number; body: string } {
	return mode.acknowledge ? ack() : { status: 500, body: "down" };
}
