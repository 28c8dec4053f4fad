// node tests/clients/import_cycles.mjs [DIR]: no module of DIR
// (clients/js/src by default) imports another in a cycle, directly or
// through others.  Reads each .js file's static imports and re-exports
// (import ... from "./x.js", export ... from "./x.js", import "./x.js",
// import("./x.js")) of files of the same folder, and walks the graph.
// Prints the modules' edges and "no import cycle", or the cycle found and
// exits 1.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve, dirname, basename } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = resolve(process.argv[2] ?? join(here, "../../clients/js/src"));
const files = readdirSync(dir).filter((f) => f.endsWith(".js")).sort();
// every specifier of a relative import or re-export, even one spread over lines
const IMPORT = /(?:^|[\s;])(?:import|export)\s*(?:[\s\S]*?\sfrom\s*)?["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

const edges = new Map();
for (const f of files) {
  // comments out first: "// refresh.js imports index.js" is not an import
  const text = readFileSync(join(dir, f), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'\\])\/\/.*$/gm, "$1");
  const out = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(dir, m[1] ?? m[2]);
    if (dirname(target) !== dir) throw new Error(`${f} imports ${m[1] ?? m[2]}, outside ${dir}`);
    if (!files.includes(basename(target))) throw new Error(`${f} imports ${m[1] ?? m[2]}, which is not a file of ${dir}`);
    out.add(basename(target));
  }
  edges.set(f, [...out].sort());
}

// depth-first search: a module met again while still on the path closes a cycle
const state = new Map(); // undefined: unseen, 1: on the path, 2: done
const path = [];
function visit(f) {
  state.set(f, 1);
  path.push(f);
  for (const g of edges.get(f)) {
    if (state.get(g) === 1) return [...path.slice(path.indexOf(g)), g];
    if (state.get(g) === undefined) {
      const cycle = visit(g);
      if (cycle) return cycle;
    }
  }
  path.pop();
  state.set(f, 2);
  return null;
}
for (const f of files) {
  console.log(`${f} -> ${edges.get(f).join(", ") || "(none)"}`);
}
for (const f of files) {
  if (state.get(f) !== undefined) continue;
  const cycle = visit(f);
  if (cycle) {
    console.log(`import cycle in ${dir}: ${cycle.join(" -> ")}`);
    process.exit(1);
  }
}
console.log(`no import cycle among the ${files.length} modules of ${dir}`);
