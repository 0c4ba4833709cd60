// Sandbox: checkout creation throughput over loopback HTTP, and the share of
// server time spent in RSA (one request verify + one response sign: the
// physical limit of a signing gateway). The baseline is a bare node:http server
// that parses the same 2.1 request, verifies it, signs a response and sends it.
// Servers run in child processes (this file, forked) so the load generator does
// not share their event loop. Bounded: a fixed number of requests per round.
import * as crypto from "node:crypto";
import { createServer } from "node:http";
import { checkoutBodies, fireCheckouts, MERCHANT_ID, pem } from "./checkout-bodies.mjs";
import { median, report, startChildServer } from "./lib.mjs";

const ROLE = process.env.SANDBOX_BENCH_SERVER;
const REQUESTS = 1200;

async function serve(role) {
	let listener;
	if (role === "sandbox") {
		const { startSandboxServer } = await import("../dist/testing.js");
		const server = await startSandboxServer({
			gatewayKeys: { privateKey: pem("gateway-private"), publicKey: pem("gateway-public") },
			merchants: [{ merchantId: MERCHANT_ID, publicKey: pem("merchant-public"), signVersion: "2.1" }],
		});
		process.send({ port: server.port, rsaUs: rsaCostUs() });
	} else {
		const merchantKey = crypto.createPublicKey(pem("merchant-public"));
		const gatewayKey = crypto.createPrivateKey(pem("gateway-private"));
		// The physical limit: parse, verify the payload, sign a response, send it. Nothing else.
		listener = (req, res) => {
			const chunks = [];
			req.on("data", (chunk) => chunks.push(chunk));
			req.on("end", () => {
				const { payload, signature } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
				const ok = crypto.verify("md5", Buffer.from(payload, "utf8"), merchantKey, Buffer.from(signature, "base64"));
				const responsePayload = JSON.stringify({
					status: "created",
					transactionId: "01JD5Z8Q4V7M1X2C3B4N5M6K7J",
					paymentLink: "http://127.0.0.1/pay/x",
					message: "ok",
				});
				const signed = crypto.sign("md5", Buffer.from(responsePayload, "utf8"), gatewayKey).toString("base64");
				res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
				res.end(JSON.stringify({ payload: responsePayload, signVersion: "2.1", signature: signed }));
			});
		};
		const server = createServer(listener);
		server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
	}
	process.on("message", () => process.send({ cpu: process.cpuUsage() }));
	process.on("disconnect", () => process.exit(0));
}

/** CPU microseconds of one response sign plus one request verify with node:crypto (2048-bit keys). */
function rsaCostUs() {
	const privateKey = crypto.createPrivateKey(pem("gateway-private"));
	const publicKey = crypto.createPublicKey(pem("merchant-public"));
	const text = Buffer.from("x".repeat(300), "utf8");
	const signature = crypto.sign("md5", text, privateKey);
	for (let i = 0; i < 50; i++) crypto.sign("md5", text, privateKey);
	// CPU time, like the per-request figures, so other load on the machine does not inflate it.
	const cpuUs = () => {
		const { user, system } = process.cpuUsage();
		return user + system;
	};
	const n = 400;
	let start = cpuUs();
	for (let i = 0; i < n; i++) crypto.sign("md5", text, privateKey);
	const signUs = (cpuUs() - start) / n;
	start = cpuUs();
	for (let i = 0; i < n * 4; i++) crypto.verify("md5", text, publicKey, signature);
	const verifyUs = (cpuUs() - start) / (n * 4);
	return { signUs, verifyUs };
}

/** A fresh server in a child process (fresh state, so orderRefs are unique again). */
async function startServer(role) {
	const { hello, ask, stop } = await startChildServer(import.meta.url, { SANDBOX_BENCH_SERVER: role });
	const usage = async () => {
		const { cpu } = await ask();
		return cpu.user + cpu.system;
	};
	return { ...hello, usage, stop };
}

/**
 * A fresh server, warmed up (JIT) with its own requests, then measured: requests/second and
 * server CPU microseconds per request.
 */
async function load(role, warmBodies, bodies) {
	const server = await startServer(role);
	await fireCheckouts(server.port, warmBodies);
	const before = await server.usage();
	const { seconds, total } = await fireCheckouts(server.port, bodies);
	const after = await server.usage();
	await server.stop();
	return { rps: total / seconds, cpuPerRequest: (after - before) / total, rsa: server.rsaUs };
}

async function main() {
	const warm = checkoutBodies(300, "warm");
	const bodies = checkoutBodies(REQUESTS, "bench");
	const runs = { bare: [], sandbox: [] };
	for (let round = 0; round < 3; round++) {
		runs.bare.push(await load("bare", warm, bodies));
		runs.sandbox.push(await load("sandbox", warm, bodies));
	}
	const bareCpu = median(runs.bare.map((r) => r.cpuPerRequest));
	const sandboxCpu = median(runs.sandbox.map((r) => r.cpuPerRequest));
	const rsa = runs.sandbox[0].rsa;
	const rsaUs = rsa.signUs + rsa.verifyUs;
	const sandboxRps = median(runs.sandbox.map((r) => r.rps));
	const bareRps = median(runs.bare.map((r) => r.rps));
	console.log(
		`  checkout creation req/s: sandbox ${sandboxRps.toFixed(0)}, bare sign+verify server ${bareRps.toFixed(0)}; ` +
			`server CPU per checkout: sandbox ${sandboxCpu.toFixed(0)} us, bare ${bareCpu.toFixed(0)} us`,
	);
	const rsaPercentOf = (cpuUs) => ((100 * rsaUs) / cpuUs).toFixed(0);
	console.log(
		`  RSA per checkout: sign ${rsa.signUs.toFixed(0)} us + verify ${rsa.verifyUs.toFixed(0)} us = ` +
			`${rsaUs.toFixed(0)} us, ${rsaPercentOf(sandboxCpu)}% of the sandbox's CPU per checkout ` +
			`(${rsaPercentOf(bareCpu)}% of the bare server's)`,
	);
	report("sandbox checkout creation CPU per request vs bare sign+verify server", {
		baselineNs: bareCpu * 1000,
		candidateNs: sandboxCpu * 1000,
		ratio: sandboxCpu / bareCpu,
	});
}

if (ROLE) await serve(ROLE);
else await main();
