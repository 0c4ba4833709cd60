// The fleet tests' harness: merchant instances in child processes (fleet-worker.ts,
// bundled once with esbuild, since Node does not run the TypeScript sources), and a
// load balancer in front of them that the sandbox delivers IPNs through.
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { ReconcileRequest, WorkerConfig, WorkerMessage, WorkerRequest } from "./fleet-worker.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
let bundled: Promise<string> | undefined;

/**
 * The worker as one ESM file of its own code and the SDK's sources. Packages stay
 * imports, resolved from the repository's node_modules: the file lives under it.
 */
export function workerBundle(): Promise<string> {
	bundled ??= (async () => {
		const dir = `${root}node_modules/.cache/merchant-gateway-tests`;
		mkdirSync(dir, { recursive: true });
		const outfile = `${dir}/fleet-worker-${process.pid}.mjs`;
		process.once("exit", () => rmSync(outfile, { force: true }));
		await build({
			entryPoints: [fileURLToPath(new URL("./fleet-worker.ts", import.meta.url))],
			bundle: true,
			platform: "node",
			format: "esm",
			target: "node22",
			packages: "external",
			outfile,
			logLevel: "error",
		});
		return outfile;
	})();
	return bundled;
}

export interface Worker {
	readonly index: number;
	readonly port: number;
	readonly child: ChildProcess;
	alive: boolean;
}

export interface Fleet {
	readonly workers: Worker[];
	/** Resolves with the first "blocked" report (a worker stuck in its first callback). */
	readonly blocked: Promise<{ worker: Worker; eventId: string }>;
	reconcile(worker: Worker, transactions: string[]): Promise<Extract<WorkerMessage, { type: "reconciled" }>>;
	/** Sends the worker a request (its requestId filled in here); resolves with its answer. */
	ask(worker: Worker, request: DistributiveOmit<WorkerRequest, "requestId">): Promise<unknown>;
	/** SIGKILL: the process dies where it stands, mid-callback. */
	kill(worker: Worker): Promise<void>;
	close(): Promise<void>;
}

type FleetConfig = Omit<WorkerConfig, "blockFirstCallback">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export async function startFleet(size: number, config: FleetConfig, blockIn?: number): Promise<Fleet> {
	const bundle = await workerBundle();
	let reportBlocked: (value: { worker: Worker; eventId: string }) => void = () => {};
	const blocked = new Promise<{ worker: Worker; eventId: string }>((resolve) => {
		reportBlocked = resolve;
	});
	const pending = new Map<number, (message: Extract<WorkerMessage, { type: "reconciled" }>) => void>();
	const asked = new Map<number, (answer: unknown) => void>();
	let requestId = 0;
	const workers = await Promise.all(
		Array.from({ length: size }, (_, index) => {
			const seed = (config.seed + index) >>> 0;
			const workerConfig: WorkerConfig = { ...config, seed, blockFirstCallback: index === blockIn };
			const child = fork(bundle, [], {
				execArgv: [],
				env: { ...process.env, FLEET_WORKER_CONFIG: JSON.stringify(workerConfig) },
				stdio: ["ignore", "inherit", "inherit", "ipc"],
			});
			return new Promise<Worker>((resolve, reject) => {
				child.once("exit", (code) =>
					reject(new Error(`fleet worker ${index} exited with ${code} before it was ready`)),
				);
				child.on("message", (message: WorkerMessage) => {
					if (message.type === "ready") resolve({ index, port: message.port, child, alive: true });
					else if (message.type === "blocked")
						reportBlocked({ worker: workers[index] as Worker, eventId: message.eventId });
					else if (message.type === "reconciled") pending.get(message.requestId)?.(message);
					else if (message.type === "answer") asked.get(message.requestId)?.(message.answer);
				});
			});
		}),
	);
	return {
		workers,
		blocked,
		reconcile(worker, transactions) {
			const id = ++requestId;
			return new Promise((resolve) => {
				pending.set(id, resolve);
				worker.child.send({ type: "reconcile", requestId: id, transactions } satisfies ReconcileRequest);
			});
		},
		ask(worker, request) {
			const id = ++requestId;
			return new Promise((resolve) => {
				asked.set(id, resolve);
				worker.child.send({ ...request, requestId: id } as WorkerRequest);
			});
		},
		async kill(worker) {
			worker.alive = false;
			const exited = new Promise((resolve) => worker.child.once("exit", resolve));
			worker.child.kill("SIGKILL");
			await exited;
		},
		async close() {
			for (const worker of workers) {
				worker.alive = false;
				if (worker.child.exitCode === null && worker.child.signalCode === null) {
					const exited = new Promise((resolve) => worker.child.once("exit", resolve));
					worker.child.kill("SIGKILL");
					await exited;
				}
			}
		},
	};
}

export interface BalancerOptions {
	/** Extra copies of a delivery sent at the same moment to other live instances (forced duplicates). @default 2 */
	copies?: number;
	/** Waits before forwarding a delivery of this transaction (holds it back). */
	hold?: (transactionId: string) => Promise<void>;
	/** The instance the very first delivery goes to, alone (so it, and nobody else, claims that event first). */
	firstTo?: Worker;
	/** The random source that picks the instances (the test's seeded one). */
	random: () => number;
}

/**
 * The sandbox's IPN `fetch`: a load balancer over the fleet's live instances. Each
 * delivery goes to a random live instance, whose response the sandbox gets; `copies`
 * more go to other live instances at the same moment. Their responses are kept.
 */
export function loadBalancer(fleet: Fleet, options: BalancerOptions) {
	const copies = options.copies ?? 2;
	const inFlight = new Set<Promise<unknown>>();
	const responses: { transactionId: string; status: number; copy: boolean }[] = [];
	const acknowledged = new Map<string, { promise: Promise<void>; resolve: () => void }>();
	const ackOf = (transactionId: string) => {
		let entry = acknowledged.get(transactionId);
		if (!entry) {
			let resolve: () => void = () => {};
			const promise = new Promise<void>((res) => {
				resolve = res;
			});
			entry = { promise, resolve };
			acknowledged.set(transactionId, entry);
		}
		return entry;
	};
	let first = true;
	const post = async (worker: Worker, body: string, transactionId: string, copy: boolean): Promise<Response> => {
		const headers = { "content-type": "application/json" };
		const response = await fetch(`http://127.0.0.1:${worker.port}/ipn`, { method: "POST", headers, body });
		responses.push({ transactionId, status: response.status, copy });
		// The handler responds 200 only with returnCode "100".
		if (!copy && response.status === 200) ackOf(transactionId).resolve();
		return response;
	};
	const live = () => fleet.workers.filter((worker) => worker.alive);
	const shuffled = <T>(items: T[]) =>
		items
			.map((item) => ({ item, key: options.random() }))
			.sort((a, b) => a.key - b.key)
			.map(({ item }) => item);
	const balancerFetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
		const body = String(init?.body ?? "");
		const transactionId = String((JSON.parse(body) as { transactionId?: unknown }).transactionId ?? "");
		if (first && options.firstTo) {
			first = false;
			return post(options.firstTo, body, transactionId, false);
		}
		if (options.hold) await options.hold(transactionId);
		const [primary, ...others] = shuffled(live());
		if (!primary) throw new TypeError("fetch failed: no instance is up");
		for (const other of others.slice(0, copies)) {
			const copy = post(other, body, transactionId, true).then(
				(response) => response.text(),
				() => undefined,
			);
			inFlight.add(copy);
			void copy.finally(() => inFlight.delete(copy));
		}
		return post(primary, body, transactionId, false);
	};
	return {
		fetch: balancerFetch as typeof fetch,
		responses,
		/** Resolves once a delivery of this transaction's IPN was acknowledged to the sandbox. */
		acknowledged: (transactionId: string) => ackOf(transactionId).promise,
		/** Resolves once every forced duplicate has got its response. */
		async settled(): Promise<void> {
			while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
		},
	};
}
