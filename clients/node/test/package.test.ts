// The package as another project gets it: `npm pack` (whose `prepare` script generates and
// compiles everything), the tarball installed with `npm install` into a fresh npm project
// outside the repository (from the npm cache when it holds the two runtime packages, as it does
// after `npm ci` here), and the Node client README's full game run there, as plain JavaScript
// under this plain Node.js, against the real server: it must print what its comments say.
//
// The package is packed from a copy of this folder (its node_modules and ../../protos linked),
// so that its build writes nowhere near the dist/ these tests run from.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { REPO, startServer, type RunningServer } from "../src/server.js";
import { printedAsCommented } from "./support.js";

const HERE = join(REPO, "clients", "node");
/** What the package is built from (test/ is left out: a consumer never builds the tests). */
const SOURCES = ["package.json", "package-lock.json", "README.md", "buf.gen.yaml", "tsconfig.json", "scripts", "src", "proto"];

let work: string;
let server: RunningServer;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "tienlen-node-package-"));
  server = await startServer();
});
after(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The environment of a command run as a user would: without what `npm test` adds (npm_*
 * settings, node_modules/.bin on PATH). */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
  env.PATH = (process.env.PATH ?? "").split(":").filter((dir) => !dir.includes("node_modules")).join(":");
  return env;
}

/** Runs `command` in `cwd` (bounded by `timeoutMs`); its stdout and stderr. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: userEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed in ${cwd}: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The Node client README's TypeScript block (the sample), as written. */
function readmeSample(): string {
  const readme = readFileSync(join(HERE, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n(.*?)```/gs)].map((m) => m[1]!);
  assert.equal(blocks.length, 1);
  return blocks[0]!;
}

test("npm pack builds a tarball that a fresh npm project installs and runs the README's game with, under plain Node", { timeout: 600_000 }, async () => {
  // Pack a copy of the package: `prepare` generates gen/ and compiles dist/ there.
  const source = join(work, "repo", "clients", "node");
  mkdirSync(source, { recursive: true });
  for (const name of SOURCES) cpSync(join(HERE, name), join(source, name), { recursive: true });
  symlinkSync(join(HERE, "node_modules"), join(source, "node_modules"), "dir");
  symlinkSync(join(REPO, "protos"), join(work, "repo", "protos"), "dir");
  const packed = join(work, "packed");
  mkdirSync(packed);
  await run("npm", ["pack", "--pack-destination", packed], source, 300_000);
  const [tarball, ...others] = readdirSync(packed);
  assert.deepEqual(others, []);
  assert.match(tarball!, /^tienlen-engine-client-\d+\.\d+\.\d+\.tgz$/);

  // What it holds: compiled JavaScript and types, the generated messages; no tests, no sources.
  const files = (await run("tar", ["-tzf", join(packed, tarball!)], work, 60_000)).stdout.split("\n").filter(Boolean);
  for (const file of ["package/package.json", "package/README.md", "package/dist/src/index.js", "package/dist/src/index.d.ts", "package/dist/src/v1.js", "package/dist/gen/tienlen/v1/game_pb.js", "package/dist/gen/tienlen/v1/game_pb.d.ts"]) {
    assert.ok(files.includes(file), `${file} is not in the tarball: ${files.join(" ")}`);
  }
  assert.deepEqual(files.filter((f) => /\/test\/|\/server\.|\.map$|\.ts$/.test(f) && !f.endsWith(".d.ts")), []);

  // A fresh project outside the repository: npm install the tarball, nothing else.
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "tienlen-app", version: "1.0.0", private: true, type: "module" }));
  const install = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(packed, tarball!)], app, 300_000);
  assert.doesNotMatch(install.stderr, /EBADENGINE/);
  const installed = join(app, "node_modules", "@tienlen", "engine-client");
  assert.ok(existsSync(join(installed, "dist", "src", "index.d.ts")));
  for (const tool of ["typescript", "@bufbuild/buf", "@bufbuild/protoc-gen-es"]) {
    assert.ok(!existsSync(join(app, "node_modules", tool)), `${tool} was installed: the consumer needs no build tool`);
  }

  // The README's game, as a .mjs file of that project, under plain Node against the server.
  const sample = readmeSample();
  writeFileSync(join(app, "game.mjs"), sample.replaceAll('"127.0.0.1:50051"', JSON.stringify(server.address)));
  const { stdout } = await run(process.execPath, ["game.mjs"], app, 120_000);
  printedAsCommented(sample, stdout.split("\n"));
  // The subpath export of the contract's messages resolves too.
  const v1 = await run(process.execPath, ["--input-type=module", "-e", 'import { v1 } from "@tienlen/engine-client"; import { TransferReason } from "@tienlen/engine-client/v1"; console.log(v1.TransferReason === TransferReason, TransferReason[2])'], app, 60_000);
  assert.equal(v1.stdout.trim(), "true CHOP");
});

/** A version as [major, minor, patch] ("20" is [20, 0, 0]; "*" parts are 0). */
function version(text: string): number[] {
  const parts = text.trim().replace(/^v/, "").split(".").map((p) => (p === "*" ? 0 : Number(p)));
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** Whether the engines range `range` admits Node `node` (the forms the lock file holds:
 * ">=X.Y.Z" and "X.*", joined by "||"; anything else fails, to be read by hand). */
function admits(range: string, node: number[]): boolean {
  return range.split("||").some((alternative) => {
    const text = alternative.trim();
    const atLeast = /^>=\s*([\d.*]+)$/.exec(text);
    if (atLeast) return compare(node, version(atLeast[1]!)) >= 0;
    const major = /^(\d+)\.\*$/.exec(text);
    if (major) return node[0] === Number(major[1]);
    assert.fail(`an engines range this test can't read: ${JSON.stringify(range)}`);
  });
}

test("every package of the lock file runs on the oldest Node the package claims, so npm ci warns nothing about engines", () => {
  const manifest = JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")) as { engines: { node: string } };
  const oldest = /^>=\s*([\d.]+)$/.exec(manifest.engines.node);
  assert.ok(oldest, `engines.node is ${manifest.engines.node}: a ">=" range`);
  const lock = JSON.parse(readFileSync(join(HERE, "package-lock.json"), "utf8")) as { packages: Record<string, { engines?: { node?: string } }> };
  const refusing = Object.entries(lock.packages)
    .filter(([, entry]) => entry.engines?.node !== undefined && !admits(entry.engines.node, version(oldest[1]!)))
    .map(([name, entry]) => `${name} wants node ${entry.engines!.node}`);
  assert.deepEqual(refusing, []);
  assert.ok(admits(manifest.engines.node, version(process.version)), `this Node ${process.version} is not in engines.node`);
  const newer = `>=${version(oldest[1]!)[0]! + 1}`;
  assert.ok(!admits(newer, version(oldest[1]!)) && admits("6.* || 8.* || >= 10.*", [22, 0, 0])); // the check can say no
});
