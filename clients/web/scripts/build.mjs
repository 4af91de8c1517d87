// Bundles the table into dist/: table.js (src/main.ts and everything it imports, minified, with
// a source map), table.css and index.html copied as they are. The service's web port serves
// dist/ at `/` (--web-root).
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.ts")],
  outfile: join(dist, "table.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
});
for (const file of ["index.html", "table.css"]) copyFileSync(join(here, "src", file), join(dist, file));
