// Generates gen/ (protobuf-es TypeScript) from ../../protos: the contract (tienlen/v1) and the
// google.rpc error protos shipped with it (google/rpc: ErrorInfo, to read a refusal's reason). The buf CLI and protoc-gen-es come from package-lock.json: no download.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const buf = join(here, "node_modules", ".bin", "buf");
const template = join(here, "buf.gen.yaml");
rmSync(join(here, "gen"), { recursive: true, force: true });
execFileSync(buf, ["generate", join(here, "..", "..", "protos"), "--template", template, "-o", here], {
  cwd: here,
  stdio: "inherit",
  timeout: 120_000,
});
