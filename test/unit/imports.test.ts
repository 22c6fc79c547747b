// The product's modules import in one direction: no two files import each other, even for a
// type alone (a file holding the shape of a kind's inputs is what both sides import).
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "../../..");
const PRODUCT = ["provider", "sdk", "cli", "plugin", "codegen"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith(".ts") ? [rel] : [];
  });
}

/** Each file's relative imports (import and export … from), as files. */
function importGraph(): Map<string, string[]> {
  const files = new Set(PRODUCT.flatMap(sourceFiles));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const targets = [...text.matchAll(/(?:import|export)[^;]*?from\s+"(\.[^"]+)"/g)]
      .map((m) => path.normalize(path.join(path.dirname(file), m[1])))
      .map((t) => [`${t}.ts`, path.join(t, "index.ts")].find((c) => files.has(c)))
      .filter((t): t is string => !!t);
    graph.set(file, targets);
  }
  return graph;
}

/** The import circles: strongly connected groups of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("imports", () => {
  it("finds a circle where there is one (the check can fail)", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    assert.deepStrictEqual(circles(graph), [["a.ts", "b.ts", "c.ts"]]);
  });

  it("has no circle in the product's modules", () => {
    const graph = importGraph();
    assert.ok(graph.size > 100, `${graph.size} files read`);
    assert.deepStrictEqual(circles(graph), []);
  });
});
