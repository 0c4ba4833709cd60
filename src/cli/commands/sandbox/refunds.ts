import type { RefundDecisionResult } from "../../../sandbox/cli-entry.js";
import { actionOf } from "../../command.js";
import { usageError } from "../../io.js";
import { CONTROL_FLAGS_HELP, defineControlCommand, onePositional, runControl } from "./control-command.js";
import { describeAttempt } from "./delivery-text.js";
import { amountText } from "./transactions.js";

function decided({ refund, delivery }: RefundDecisionResult): string {
	const amount = `${amountText(refund.refundAmount)} ${refund.currency}`;
	const lines = [`refund ${refund.refundId} (${amount} of transaction ${refund.transactionId}) is ${refund.status}`];
	lines.push(delivery ? `IPN ${describeAttempt(delivery)}` : "IPN: none sent");
	return lines.join("\n");
}

export const refundsCommand = defineControlCommand({
	name: "refunds",
	summary: "Approve or reject a refund held for approval (--refund-approval manual)",
	help: `Usage: merchant-gateway sandbox refunds approve <refundId> --state-dir <dir> [options]
       merchant-gateway sandbox refunds reject <refundId> [--reason <text>] --state-dir <dir> [options]

Decides a refund the running sandbox holds for approval (refund_under_review,
with --refund-approval manual): approved, it becomes refund_successful; rejected,
refund_failed, and its amount is refundable again. The refund IPN follows as the
gateway sends it; the command waits for its first delivery attempt and prints
the merchant's response. Refund ids: merchant-gateway sandbox transactions.

Options:
      --reason <text>         reject: the refund's message. Default: The refund
                              was rejected.
${CONTROL_FLAGS_HELP}

Exit codes: 0 decided, 1 no such refund, not under review, or the sandbox is not
running, 2 bad usage.`,
	options: { reason: { type: "string" } },
	async run({ values, positionals }, io) {
		const [action, rest] = actionOf(positionals, "approve", "reject");
		const refundId = onePositional(rest, "the refund's id");
		if (action === "approve" && values.reason !== undefined) throw usageError("--reason goes with reject");
		return runControl(
			io,
			values,
			(control) =>
				action === "approve" ? control.approveRefund(refundId) : control.rejectRefund(refundId, values.reason),
			decided,
		);
	},
});
