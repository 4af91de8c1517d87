// The page's generated TypeScript against the real service's web port: a refusal's ErrorInfo
// reason read with `findDetails(ErrorInfoSchema)` (the google.rpc protos shipped in
// protos/google/rpc) over Connect (binary and JSON) and over gRPC-Web, and the int64 story:
// chips are `bigint` in the generated code whichever wire carried them, JSON numbers on the
// wire.
//
// The service runs in a Python process of its own (TIENLEN_PYTHON, else the repository's
// .venv), every port of it on 127.0.0.1 and port 0; its web port is read from the line it prints
// once serving.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fromJson } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { NewGameResponseSchema, TienLenEngine } from "../gen/tienlen/v1/service_pb.js";

/** The repository root (clients/web/build/web/test -> five levels up). */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "..");
const PYTHON = process.env.TIENLEN_PYTHON ?? join(REPO, ".venv", "bin", "python");
const START_TIMEOUT_MS = 60_000;
/** The host's deal key (the contract's public test key): a service that checks seat tokens
 * deals a seeded game only for the host, which proves itself with it (docs/SECURITY.md). */
const DEAL_KEY_FILE = join(REPO, "tests", "contract", "deal-key.txt");
const DEAL_KEY = readFileSync(DEAL_KEY_FILE, "utf8").trim();

// In a Config (not on the command line, where 0 turns the web port off) web port 0 is a free
// port; the line printed once serving names it.
const LAUNCHER = `
import json, signal, sys
from tienlen_service.config import Config
from tienlen_service.server import Server
server = Server(Config(host="127.0.0.1", port=0, metrics_port=None, web_port=0, web_root=None,
                       require_seat_tokens=True, deal_key_file=sys.argv[1], log_level="warning"))
server.start()
print(json.dumps({"event": "web_serving", "web_port": server.web_port}), flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
server.stop(0, 0)
`;

let child: ChildProcess | undefined;
let baseUrl = "";

before(async () => {
  const started = spawn(PYTHON, ["-c", LAUNCHER, DEAL_KEY_FILE], {
    cwd: REPO,
    env: { ...process.env, PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(":") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = started;
  const output: string[] = [];
  started.stderr!.on("data", (data: Buffer) => output.push(data.toString()));
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`no web port within ${START_TIMEOUT_MS} ms:\n${output.join("")}`)), START_TIMEOUT_MS);
    createInterface({ input: started.stdout! }).on("line", (line) => {
      try {
        const record = JSON.parse(line) as { event?: string; web_port?: number };
        if (record.event === "web_serving" && typeof record.web_port === "number") {
          clearTimeout(timer);
          resolvePort(record.web_port);
        }
      } catch {
        output.push(`${line}\n`);
      }
    });
    started.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before serving:\n${output.join("")}`));
    });
  });
  baseUrl = `http://127.0.0.1:${port}`;
});

after(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolveExit) => child!.once("exit", resolveExit));
  child.kill("SIGTERM");
  await exited;
});

const TRANSPORTS: Record<string, () => Transport> = {
  "Connect, binary": () => createConnectTransport({ baseUrl, useBinaryFormat: true }),
  "Connect, JSON": () => createConnectTransport({ baseUrl }),
  "gRPC-Web, binary": () => createGrpcWebTransport({ baseUrl, useBinaryFormat: true }),
  "gRPC-Web, JSON": () => createGrpcWebTransport({ baseUrl }),
};

for (const [name, transport] of Object.entries(TRANSPORTS)) {
  test(`a refusal's ErrorInfo reason reads with findDetails over ${name}`, async () => {
    const engine = createClient(TienLenEngine, transport());
    const dealt = await engine.newGame({ players: 4, deal: { case: "seed", value: 7n }, dealKey: DEAL_KEY });
    const game = dealt.game!;
    const wrong = ((game.toAct ?? 0) + 1) % 4; // not this seat's turn
    const error = await engine
      .applyMove({
        stateToken: game.stateToken, seat: wrong, seatToken: dealt.seatTokens[wrong]!,
        move: { action: { case: "passTurn", value: {} } },
      })
      .then(() => assert.fail("a move out of turn was accepted"), (e: unknown) => ConnectError.from(e));
    assert.equal(error.code, Code.FailedPrecondition);
    const details = error.findDetails(ErrorInfoSchema);
    assert.equal(details.length, 1, `one ErrorInfo, got ${JSON.stringify(error.details)}`);
    assert.equal(details[0]!.reason, "NOT_YOUR_TURN");
    assert.equal(details[0]!.domain, "tienlen.v1");
    assert.equal(details[0]!.metadata.seat, String(wrong));

    // Another refusal, by the seat tokens: PERMISSION_DENIED with its own reason.
    const denied = await engine
      .getView({ stateToken: game.stateToken, seat: 1, seatToken: dealt.seatTokens[2]! })
      .then(() => assert.fail("a wrong seat token was accepted"), (e: unknown) => ConnectError.from(e));
    assert.equal(denied.code, Code.PermissionDenied);
    assert.equal(denied.findDetails(ErrorInfoSchema)[0]?.reason, "SEAT_TOKEN_INVALID");
  });
}

test("chips are bigint in the generated code over every wire, and numbers in the web port's JSON", async () => {
  const answers = await Promise.all(
    Object.values(TRANSPORTS).map((transport) =>
      createClient(TienLenEngine, transport()).newGame({ players: 4, deal: { case: "seed", value: 7n }, dealKey: DEAL_KEY }),
    ),
  );
  for (const answer of answers) {
    const seat = answer.game!.view!.seats[0]!;
    assert.equal(typeof seat.matchTotal, "bigint");
    assert.equal(seat.matchTotal, 0n);
  }
  // The JSON itself, as fetch reads it: int64 fields are JSON numbers (proto3 JSON parsers
  // read numbers and strings alike), and protobuf-es's fromJson turns them into bigint.
  const response = await fetch(`${baseUrl}/tienlen.v1.TienLenEngine/NewGame`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ players: 4, seed: "7", dealKey: DEAL_KEY }),
  });
  assert.equal(response.status, 200);
  const json = (await response.json()) as { game: { view: { seats: { matchTotal: unknown }[] } } };
  assert.equal(json.game.view.seats[0]!.matchTotal, 0);
  const parsed = fromJson(NewGameResponseSchema, json as never);
  assert.equal(parsed.game!.view!.seats[0]!.matchTotal, 0n);
});
