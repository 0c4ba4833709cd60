import { parseJsonObject } from "../../internal/plain-object.js";
import { redactText } from "../../internal/redact.js";
import { refundEventId, transactionEventId } from "../../notifications/message/event-id.js";
import type { TransactionRecord } from "../books/records.js";
import { refundResource } from "../books/resources.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { decideRefund, transactionView } from "../core/views.js";
import type { DeliveryAttempt } from "../wire/notifier.js";
import { readBodyText } from "../wire/request-body.js";
import type { SandboxRequest, SandboxResponse } from "../wire/request-response.js";
import { refuseAccess } from "./access.js";
import { CONTROL_PATH, type ControlTransaction } from "./control-types.js";
import { MAX_ADVANCE_MS } from "./duration.js";

/** What a route gets: the sandbox, the path's captures and the request's JSON body. */
interface RouteInput {
	core: SandboxCore;
	captures: string[];
	body: Record<string, unknown>;
	query: URLSearchParams;
}

/** A route's result: its JSON body, or a refusal naming the field and its rule. */
type RouteResult =
	| { status?: number; json: Record<string, unknown> }
	| { status: 400 | 404 | 409; field: string; message: string };

interface Route {
	method: "GET" | "POST";
	path: RegExp;
	run(input: RouteInput): RouteResult | Promise<RouteResult>;
}

const DEFAULT_DELIVERY_LIMIT = 50;
const MAX_DELIVERY_LIMIT = 1000;

const refuse = (status: 400 | 404 | 409, field: string, message: string): RouteResult => ({ status, field, message });

const ROUTES: readonly Route[] = [
	{ method: "GET", path: /^\/transactions$/, run: ({ core }) => ({ json: { transactions: listTransactions(core) } }) },
	{ method: "POST", path: /^\/refunds\/([^/]+)\/(approve|reject)$/, run: decide },
	{ method: "GET", path: /^\/ipn\/deliveries$/, run: listDeliveries },
	{ method: "POST", path: /^\/ipn\/resend$/, run: resend },
	{ method: "POST", path: /^\/clock\/advance$/, run: advanceClock },
];

function listTransactions(core: SandboxCore): ControlTransaction[] {
	return core.ledger.transactions().map((record) => ({
		...transactionView(core, record),
		refunds: core.ledger.refundsOf(record).map((refund) => refundResource(refund, record)),
	}));
}

async function decide({ core, captures, body }: RouteInput): Promise<RouteResult> {
	const [refundId = "", verb] = captures;
	const reason = body.reason;
	if (reason !== undefined && (typeof reason !== "string" || reason.length > 255))
		return refuse(400, "reason", "must be text of at most 255 characters");
	const decision = decideRefund(core, decodeURIComponent(refundId), verb === "approve", reason);
	if (!decision.ok) return refuse(decision.unknown ? 404 : 409, "refundId", decision.message);
	const { refund } = decision;
	const deliveryId = core.notifier.latest(refundEventId(refund.refundId, refund.status));
	const delivery = deliveryId === undefined ? undefined : await core.notifier.settled(deliveryId);
	return { json: { refund, delivery } };
}

function listDeliveries({ core, query }: RouteInput): RouteResult {
	const asked = query.get("limit");
	const limit = asked === null ? DEFAULT_DELIVERY_LIMIT : Number(asked);
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIMIT)
		return refuse(400, "limit", `must be a whole number from 1 to ${MAX_DELIVERY_LIMIT}`);
	return { json: { deliveries: core.notifier.attempts().slice(-limit) } };
}

async function resend({ core, body }: RouteInput): Promise<RouteResult> {
	const { id } = body;
	if (typeof id !== "string" || id === "") return refuse(400, "id", "must name a transaction or a refund");
	const transaction = core.ledger.transaction(id);
	const refund = transaction ? undefined : core.ledger.refund(id);
	if (!transaction && !refund) return refuse(404, "id", `${id} names no transaction or refund in this sandbox`);
	const prefix = transaction
		? transactionEventId(transaction.transactionId, "")
		: refundEventId(refund?.refundId ?? "", "");
	const deliveryId = core.notifier.latest(prefix);
	if (deliveryId === undefined) return refuse(409, "id", notYetNotified(transaction));
	const delivery = await core.notifier.resend(deliveryId);
	if (!delivery) return refuse(409, "id", "the sandbox is stopping");
	return { json: { delivery } };
}

function notYetNotified(transaction: TransactionRecord | undefined): string {
	if (!transaction) return "the refund has no IPN yet";
	return `transaction ${transaction.transactionId} is ${transaction.status}: its IPN goes out once its status is final`;
}

async function advanceClock({ core, body }: RouteInput): Promise<RouteResult> {
	const { ms } = body;
	if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS)
		return refuse(400, "ms", `must be a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (ten years)`);
	const before = core.notifier.attempts().length;
	core.clock.advance(ms);
	// What fell due runs now: wait for those attempts, so the response says how the merchant took them.
	await core.notifier.whenSettled();
	const deliveries: DeliveryAttempt[] = core.notifier.attempts().slice(before);
	return { json: { now: core.clock.now().toISOString(), deliveries } };
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}): SandboxResponse => ({
	status,
	headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
	body: JSON.stringify(value),
});

const failure = (status: number, message: string, headers: Record<string, string> = {}) =>
	json(status, { status: "error", message }, headers);

/** True for a request target (path and query, as sent) the control API owns. */
export function isControlPath(target: string): boolean {
	if (!target.startsWith(CONTROL_PATH)) return false;
	const next = target.charAt(CONTROL_PATH.length);
	return next === "" || next === "/" || next === "?";
}

/**
 * Responds to a control API request: list transactions, approve or reject a held refund, list IPN
 * deliveries, resend an IPN now, move the clock. Only this machine's requests (`remoteAddress`: the peer's,
 * as the socket reports it) carrying the control credential get through. A failure is a JSON response,
 * never with a stack.
 */
export async function handleControl(
	core: SandboxCore,
	token: string,
	request: SandboxRequest,
	remoteAddress: string | undefined,
): Promise<SandboxResponse> {
	const refusal = refuseAccess({ remoteAddress, header: (name) => request.headers.get(name) }, token);
	if (refusal) {
		const challenge: Record<string, string> =
			refusal.status === 401 ? { "www-authenticate": 'Bearer realm="merchant-gateway sandbox control"' } : {};
		return failure(refusal.status, refusal.message, challenge);
	}
	const url = new URL(request.url);
	const path = url.pathname.slice(CONTROL_PATH.length).replace(/\/+$/, "");
	const matching = ROUTES.filter((route) => route.path.test(path));
	const route = matching.find((candidate) => candidate.method === request.method);
	if (!route) {
		if (matching.length === 0) return failure(404, `No control route at ${url.pathname}.`);
		const allowed = matching.map((r) => r.method).join(", ");
		return failure(405, `Use ${allowed}.`, { allow: allowed });
	}
	try {
		const body = route.method === "POST" ? await readJsonBody(request) : {};
		if (typeof body === "string") return failure(400, body);
		const captures = route.path.exec(path)?.slice(1) ?? [];
		const mark = core.mark();
		const result = await route.run({ core, captures, body, query: url.searchParams });
		// An approval or a clock move is on disk before it is reported, as the API's changes are; a list
		// that showed a change which could not be saved is not sent.
		await core.saved(mark);
		if ("field" in result) {
			const issues = [{ field: result.field, message: result.message }];
			return json(result.status, { status: "error", message: `${result.field} ${result.message}`, issues });
		}
		return json(result.status ?? 200, result.json);
	} catch (error) {
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		return failure(500, "The control request failed inside the sandbox.");
	}
}

/** The request's JSON object, {} for no body, or why it is refused. */
async function readJsonBody(request: SandboxRequest): Promise<Record<string, unknown> | string> {
	const text = await readBodyText(request);
	if (text === undefined) return "The request body is too large.";
	if (text.trim() === "") return {};
	return parseJsonObject(text) ?? "The request body must be a JSON object.";
}
