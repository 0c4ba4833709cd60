import type { BodyTimeout } from "./http-rules.js";

// What the handler exchanges with a server adapter: a delivery in, a response out.

/** One IPN delivery as the handler needs it, whatever the server. */
export interface NotificationDelivery {
	/** The HTTP method. */
	method: string | undefined;
	/** The Content-Type header, when present. */
	contentType: string | null | undefined;
	/** The Content-Length header, when present: a body declared over the limit is refused before it is read. */
	contentLength: string | null | undefined;
	/**
	 * Reads the body: text, bytes, or the object a body parser already made. It stops once more than
	 * `maxBytes` arrived, or once `timeout.ms` passed (measured with `timeout.start`), and rejects then.
	 */
	readBody(maxBytes: number, timeout: BodyTimeout): Promise<unknown>;
}

/** The handler's response to a delivery, for a server adapter to write. */
export interface NotificationResponse {
	/** The HTTP status. */
	status: number;
	/** The acknowledgement, as JSON text (`application/json; charset=utf-8`, not to be cached). */
	body: string;
	/** The body was not read to its end: close the connection after the response. */
	closeConnection?: boolean;
	/** The `Allow` header of a 405 response. */
	allow?: string;
}

/** What a server adapter hands each delivery to: the handler's `handle`. */
export interface DeliveryHandler {
	/** Responds to one delivery. */
	handle(delivery: NotificationDelivery): Promise<NotificationResponse>;
}
