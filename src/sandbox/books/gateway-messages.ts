/** The gateway's own message texts (D12), and the sandbox's where the evidence shows none. */
export const MESSAGES = {
	checkoutCreated: "Payment Link created successfully",
	chargeCompleted: "The transaction has been successfully completed.",
	chargeRedirect: "Please redirect the user to complete the payment.",
	invalidData: "Invalid request data.",
	refundHeld: "The refund was created and is waiting for approval.",
} as const;
