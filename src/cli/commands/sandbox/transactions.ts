import { toMinorUnits } from "../../../money/amount.js";
import type { ControlTransaction } from "../../../sandbox/cli-entry.js";
import { usageError } from "../../io.js";
import { CONTROL_FLAGS_HELP, defineControlCommand, runControl } from "./control-command.js";

/** An amount with its two decimals: 12.5 -> "12.50". */
export function amountText(amount: number): string {
	const minor = toMinorUnits(amount);
	return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

function table(transactions: readonly ControlTransaction[]): string {
	if (transactions.length === 0) return "No transactions yet.";
	const rows = transactions.map((t) => [
		t.transactionId,
		t.ref,
		t.status,
		amountText(t.amount),
		t.currency,
		t.transactionCreatedAt ?? "",
	]);
	const header = ["TRANSACTION", "REF", "STATUS", "AMOUNT", "CURRENCY", "CREATED"];
	const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
	const line = (cells: string[]) =>
		cells
			.map((cell, i) => (i === 3 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
			.join("  ")
			.trimEnd();
	const lines = [line(header)];
	transactions.forEach((transaction, i) => {
		lines.push(line(rows[i] ?? []));
		for (const refund of transaction.refunds) {
			const amount = `${amountText(refund.refundAmount)} ${refund.currency}`;
			lines.push(`  refund ${refund.refundId}  ${amount}  ${refund.status}`);
		}
	});
	return lines.join("\n");
}

export const transactionsCommand = defineControlCommand({
	name: "transactions",
	summary: "List the running sandbox's transactions and their refunds",
	help: `Usage: merchant-gateway sandbox transactions --state-dir <dir> [options]

Lists every transaction of the running sandbox, oldest first: id, order ref,
status, amount, currency and when it was created, each followed by its refunds
(a refund held for approval is refund_under_review).

Options:
${CONTROL_FLAGS_HELP}

Exit codes: 0 listed, 1 the sandbox is not running or refused, 2 bad usage.`,
	async run({ values, positionals }, io) {
		if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
		return runControl(io, values, (control) => control.transactions(), table);
	},
});
