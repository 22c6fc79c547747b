// The SDK's Args say what each input is and how its change applies, as the kinds'
// declarations class it: every member of every exported Args interface has a doc
// comment, and a kind's top-level input names its change class.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { ChangeClass, Property } from "../../provider/resources/properties";
import { DECLARATIONS } from "../support/property-docs";

const SDK = path.join(__dirname, "../../../sdk");

/** Every exported `…Args` interface of the SDK: its members' doc comments, and the interface it extends. */
function argsInterfaces(): Map<string, { docs: Map<string, string>; extends?: string }> {
  const out = new Map<string, { docs: Map<string, string>; extends?: string }>();
  for (const file of fs.readdirSync(SDK).filter((f) => f.endsWith(".ts"))) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(SDK, file), "utf8"), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node) || !node.name.text.endsWith("Args")) return;
      const docs = new Map<string, string>();
      for (const m of node.members) {
        const jsdoc = ts
          .getJSDocCommentsAndTags(m)
          .map((d) => d.getText().replace(/\s*\n\s*\*(?!\/)\s*/g, " "))
          .join(" ");
        docs.set((m.name as ts.Identifier).text, jsdoc);
      }
      out.set(node.name.text, { docs, extends: node.heritageClauses?.[0]?.types[0]?.expression.getText() });
    });
  }
  return out;
}

/** How an SDK doc comment names each change class. */
const SAYS: Record<ChangeClass, RegExp> = { replace: /replace/i, restart: /restart/i, live: /in place/i, record: /recorded/i };

describe("SDK docs", () => {
  const args = argsInterfaces();

  it("documents every member of every Args interface", () => {
    assert.ok(args.size >= 10, `found ${args.size} Args interfaces`);
    const missing = [...args].flatMap(([name, i]) => [...i.docs].filter(([, doc]) => !doc).map(([m]) => `${name}.${m}`));
    assert.deepStrictEqual(missing, []);
  });

  for (const decl of DECLARATIONS) {
    it(`${decl.kind}Args says how each input's change applies, as the declaration does`, () => {
      const own = args.get(`${decl.kind}Args`);
      assert.ok(own, `sdk has no ${decl.kind}Args`);
      const docs = new Map([...(own.extends ? (args.get(own.extends)?.docs ?? []) : []), ...own.docs]);
      for (const [name, p] of Object.entries<Property<unknown, unknown>>(decl.properties)) {
        if (p.bySdk) continue;
        const doc = docs.get(name);
        assert.ok(doc !== undefined, `${decl.kind}Args has no ${name}`);
        if (p.hint) assert.match(doc, /not compared/i, `${decl.kind}Args.${name}`);
        else assert.match(doc, SAYS[p.change], `${decl.kind}Args.${name} must say it ${p.change}s (${doc})`);
        if (p.replaceWhen) assert.match(doc, SAYS.replace, `${decl.kind}Args.${name} must say when it replaces`);
        if (p.restartWhen) assert.match(doc, SAYS.restart, `${decl.kind}Args.${name} must say when it restarts`);
      }
    });
  }
});
