// Starts the real Python server as a subprocess for the tests: `python -m tienlen_service`
// with the contract settings (tests/contract/server.json) on a free loopback port. The port is
// read from the server's JSON "serving" log line; readiness is the standard health check.
// With `metrics`, its Prometheus endpoint is served too (tests read its call counters).

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { WireClient } from "./wire.js";

/** The repository root (clients/node/dist/src -> ../../../..). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
/** The golden conversations. */
export const CONVERSATIONS_DIR = join(REPO, "tests", "contract", "conversations");

/** The Python interpreter: $TIENLEN_PYTHON, else the repository's virtualenv. */
export function python(): string {
  return process.env.TIENLEN_PYTHON ?? join(REPO, ".venv", "bin", "python");
}

/** The flags of the contract server (tests/contract/server.json). */
export function serverArgs(): string[] {
  const settings = JSON.parse(readFileSync(join(REPO, "tests", "contract", "server.json"), "utf8")) as { args: string[] };
  return settings.args.map(String);
}

/** A running server. */
export interface RunningServer {
  address: string;
  /** http://127.0.0.1:PORT/metrics when started with `metrics`. */
  metricsUrl?: string;
  /** Everything the server printed so far. */
  output: string[];
  /** Send it `signal` (default SIGTERM) and return at once. On SIGTERM it drains (NOT_SERVING
   * first, for --drain-delay seconds) and stops; a SIGINT after that stops it at once. */
  terminate(signal?: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** Options of `startServer`. */
export interface ServerOptions {
  /** Serve /metrics on a free loopback port (default: off). */
  metrics?: boolean;
}

/** Start a server; `command` defaults to the real one with the contract settings. */
export async function startServer(command?: string[], timeoutMs = 30_000, options: ServerOptions = {}): Promise<RunningServer> {
  // The service reads --metrics-port 0 as "off", so a metrics port is picked here.
  const metricsPort = options.metrics ? await freePort() : 0;
  const argv = [...(command ?? [python(), "-m", "tienlen_service", ...serverArgs()]),
    "--host", "127.0.0.1", "--port", "0", "--metrics-port", String(metricsPort), "--log-format", "json"];
  // This process is the host of the server it starts: its clients send that server's deal key
  // with seeded and explicit deals (TienLenClient reads TIENLEN_DEAL_KEY), as a host's would.
  const keyFile = argv.indexOf("--deal-key-file");
  if (keyFile >= 0) process.env.TIENLEN_DEAL_KEY ??= readFileSync(resolve(REPO, argv[keyFile + 1]!), "utf8").trim();
  const env = { ...process.env, PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(":") };
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  child.stderr!.on("data", (d: Buffer) => output.push(d.toString()));
  const stop = () => stopChild(child);

  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output.join("")}`)), timeoutMs);
      const lines = createInterface({ input: child.stdout! });
      lines.on("line", (line) => {
        output.push(`${line}\n`);
        try {
          const record = JSON.parse(line) as { event?: string; port?: number };
          if (record.event === "serving" && typeof record.port === "number") {
            clearTimeout(timer);
            resolvePort(record.port);
          }
        } catch {
          // not a JSON log line
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code} before serving:\n${output.join("")}`));
      });
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    const address = `127.0.0.1:${port}`;
    const probe = new WireClient(address);
    try {
      if (!(await probe.serving(timeoutMs))) throw new Error(`${address}: the health check does not say SERVING`);
    } finally {
      probe.close();
    }
    const metricsUrl = metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined;
    return { address, metricsUrl, output, terminate: (signal = "SIGTERM") => void child.kill(signal), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A TCP port free on loopback now (the server binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}
