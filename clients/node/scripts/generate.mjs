// Generates gen/ (protobuf-es TypeScript: messages and service descriptors) from the
// repository's protos (../../protos: the contract and the google.rpc error protos shipped with
// it, Status and ErrorInfo/BadRequest) and grpc.health.v1 (proto/), which only this client needs. Uses the buf CLI and
// protoc-gen-es installed from package-lock.json: no network, no other tool.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const buf = join(here, "node_modules", ".bin", "buf");
rmSync(join(here, "gen"), { recursive: true, force: true });
for (const input of [join(here, "..", "..", "protos"), join(here, "proto")]) {
  execFileSync(buf, ["generate", input, "--template", join(here, "buf.gen.yaml"), "-o", here], {
    cwd: here,
    stdio: "inherit",
    timeout: 120_000,
  });
}
