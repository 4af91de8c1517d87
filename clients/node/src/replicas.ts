// The replicas a client talks to: one address, or several spread round robin with their health
// watched — what the Python client gets from gRPC's service config (round_robin and
// healthCheckConfig). grpc-js balances round robin but has no client-side health checking, so
// with several addresses the client does both itself: one grpc-js channel per address, each
// call (and each attempt of it) on the next replica in turn, and a replica whose standard health
// service says NOT_SERVING — one that is draining before it stops — gets no new calls.
//
// Each watched replica has one Health.Watch stream open for the engine's service name. Its
// answers set the replica's health; a replica without a health service (UNIMPLEMENTED) counts
// as serving, as gRPC's own health checking has it; a watch that fails (the replica is down)
// counts as not serving and is opened again after a backoff. A call goes to the next replica
// known to be SERVING; when none is yet, to the next whose health is not known yet; when none is
// either, to the next one at all (the call then fails, or succeeds, on its own).
//
// With one address there is one channel, no health watch (as the Python client: the watch would
// follow whichever replica a proxy picks), and gRPC's round_robin policy, so that a
// `dns:///name:port` target spreads the calls over every address DNS gives.

import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Health, HealthCheckResponse_ServingStatus, type HealthCheckResponse } from "../gen/grpc/health/v1/health_pb.js";
import { TienLenEngine } from "../gen/tienlen/v1/service_pb.js";

/** What the client knows of a replica's health. */
export type ReplicaHealth = "SERVING" | "NOT_SERVING" | "UNKNOWN";

/** The first wait before a failed health watch is opened again; it doubles up to the max. */
const WATCH_BACKOFF_INITIAL_MS = 100;
const WATCH_BACKOFF_MAX_MS = 2_000;

/** The channel arguments of every replica: round robin over the addresses its target resolves
 * to (the Python client's service config). */
function withRoundRobin(options: grpc.ClientOptions | undefined): grpc.ClientOptions {
  return { "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }), ...options };
}

class Replica {
  health: ReplicaHealth = "UNKNOWN";
  private watch: grpc.ClientReadableStream<HealthCheckResponse> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  constructor(
    readonly address: string,
    readonly client: grpc.Client,
  ) {}

  /** Watch the replica's health until `close`. */
  startWatch(): void {
    if (this.closed) return;
    this.timer = undefined;
    const method = Health.method.watch;
    const call = this.client.makeServerStreamRequest(
      `/${Health.typeName}/${method.name}`,
      (m: ReturnType<typeof create<typeof method.input>>) => Buffer.from(toBinary(method.input, m)),
      (b: Buffer) => fromBinary(method.output, b),
      create(method.input, { service: TienLenEngine.typeName }),
    );
    this.watch = call;
    call.on("data", (answer: HealthCheckResponse) => {
      this.failures = 0;
      this.health = answer.status === HealthCheckResponse_ServingStatus.SERVING ? "SERVING" : "NOT_SERVING";
    });
    call.on("error", () => {}); // the status says it all
    call.on("status", (status: grpc.StatusObject) => {
      if (this.closed || this.watch !== call) return;
      this.watch = undefined;
      if (status.code === grpc.status.UNIMPLEMENTED) {
        this.health = "SERVING"; // no health service: nothing to watch
        return;
      }
      this.health = "NOT_SERVING";
      const backoff = Math.min(WATCH_BACKOFF_MAX_MS, WATCH_BACKOFF_INITIAL_MS * 2 ** this.failures++);
      this.timer = setTimeout(() => this.startWatch(), backoff);
      this.timer.unref(); // a pending re-watch keeps no process alive
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.watch?.cancel();
    this.client.close();
  }
}

/** The replicas of one client; see the module comment. */
export class Replicas {
  private readonly members: Replica[];
  private turn = 0;

  /** `healthCheck`: watch each replica's health (default: when there are several). */
  constructor(address: string | readonly string[], credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions, healthCheck?: boolean) {
    const addresses = typeof address === "string" ? [address] : [...address];
    if (addresses.length === 0) throw new TypeError("no address given");
    this.members = addresses.map((a) => new Replica(a, new grpc.Client(a, credentials, withRoundRobin(options))));
    if (healthCheck ?? addresses.length > 1) for (const replica of this.members) replica.startWatch();
  }

  /** The channel of the next call: round robin over the replicas known to serve (or, when none
   * is, those not known yet; or, when none is either, all of them). */
  pick(): grpc.Client {
    const serving = this.members.filter((r) => r.health === "SERVING");
    const unknown = this.members.filter((r) => r.health === "UNKNOWN");
    const candidates = serving.length > 0 ? serving : unknown.length > 0 ? unknown : this.members;
    return candidates[this.turn++ % candidates.length]!.client;
  }

  /** Every replica's address and what the client knows of its health ("UNKNOWN" when not
   * watched). */
  get health(): { address: string; health: ReplicaHealth }[] {
    return this.members.map((r) => ({ address: r.address, health: r.health }));
  }

  /** Every replica's channel. */
  get clients(): grpc.Client[] {
    return this.members.map((r) => r.client);
  }

  /** Stop the watches and close every channel. */
  close(): void {
    for (const replica of this.members) replica.close();
  }
}
