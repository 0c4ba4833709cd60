// 2.0 verification against the gateway's own code: its PHP reference (bench/php/verify-reference.php:
// json_decode, ksort(SORT_NATURAL), trim on every leaf, json_encode, openssl_verify with a loaded key)
// verifying the vectors' 1.3 KB transaction IPN in one long-running php process, and verifyNotification
// verifying the same raw text here. Rounds alternate between the two (the other side idles meanwhile) and
// change which goes first; as in signing.bench.mjs, the figure is the ratio of each side's fastest round,
// the median rounds' ratio and the median of paired rounds printed below it. Without php-cli the comparison
// is skipped, saying so.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadPublicKey, verifyNotification } from "../dist/index.js";
import { median, pairedRatio, report, timePerCallSync } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const NAME = "verifyNotification 2.0 raw text vs the PHP reference";
const keyPath = fileURLToPath(new URL("../test/vectors/keys/gateway-public.pem", import.meta.url));
const script = fileURLToPath(new URL("./php/verify-reference.php", import.meta.url));

/** The first line of `php --version`, or undefined when there is no php to run. */
function phpVersion() {
	const result = spawnSync("php", ["--version"], { encoding: "utf8" });
	return result.status === 0 ? result.stdout.split("\n")[0] : undefined;
}

/** The PHP reference in a long-running process: `round(count)` resolves to its nanoseconds per verification. */
function startPhp(message) {
	const child = spawn("php", [script, keyPath], { stdio: ["pipe", "pipe", "inherit"] });
	const waiting = [];
	createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.resolve(Number(line)));
	child.on("exit", (code) => {
		for (const round of waiting.splice(0)) round.reject(new Error(`the PHP reference exited with ${code}`));
	});
	child.stdin.write(`${JSON.stringify(message)}\n`);
	return {
		round: (count) =>
			new Promise((resolve, reject) => {
				waiting.push({ resolve, reject });
				child.stdin.write(`${count}\n`);
			}),
		stop: () => child.stdin.end(),
	};
}

const version = phpVersion();
if (version === undefined) {
	console.log(`${NAME}: skipped, php is not installed here (install php-cli to compare with the gateway's code)`);
} else {
	const ipn = vector("transaction-ipn-2.0");
	const publicKey = loadPublicKey(readFileSync(keyPath, "utf8"));
	const sdk = () => verifyNotification(ipn.message, { gatewayPublicKey: publicKey });
	if (sdk().transaction.transactionId !== JSON.parse(ipn.message).transactionId)
		throw new Error("bench setup: verifyNotification returned another transaction");
	const php = startPhp(ipn.message);
	const iterations = 40;
	await php.round(3000);
	timePerCallSync(sdk, 3000);
	const phpRounds = [];
	const sdkRounds = [];
	for (let round = 0; round < 301; round++) {
		if (round % 2 === 0) phpRounds.push(await php.round(iterations));
		sdkRounds.push(timePerCallSync(sdk, iterations));
		if (round % 2 === 1) phpRounds.push(await php.round(iterations));
	}
	php.stop();
	const phpNs = Math.min(...phpRounds);
	const sdkNs = Math.min(...sdkRounds);
	report(NAME, { baselineNs: phpNs, candidateNs: sdkNs, ratio: sdkNs / phpNs, goal: 1 });
	const [sdkMedian, phpMedian] = [median(sdkRounds), median(phpRounds)];
	console.log(
		`    (median rounds: ${(sdkMedian / 1000).toFixed(1)} us vs ${(phpMedian / 1000).toFixed(1)} us, ` +
			`ratio ${(sdkMedian / phpMedian).toFixed(3)}x; median of paired rounds ` +
			`${pairedRatio(phpRounds, sdkRounds).toFixed(3)}x; ${version})`,
	);
}
