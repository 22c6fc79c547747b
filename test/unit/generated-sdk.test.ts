// The TypeScript SDK's classes are generated from the kinds' declarations (codegen/): the
// committed files are what the generator writes (`npm run gen`), and each class has every
// input and output the plugin's schema gives the other languages.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { formattedSdk } from "../../codegen/formatted";
import { fileOf } from "../../codegen/typescript";
import { KIND_NAMES } from "../../provider/kinds";
import { schemaJson, typeToken } from "../../plugin/schema";

const SDK = path.join(__dirname, "../../../sdk");

/** The member names of a class or interface declared in an SDK file. */
function members(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(SDK, file), "utf8"), ts.ScriptTarget.Latest, true);
  let found: string[] | undefined;
  source.forEachChild((node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name?.text === name) {
      found = (node.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>)
        .filter((m) => !ts.isConstructorDeclaration(m))
        .map((m) => (m.name as ts.Identifier).text);
    }
  });
  assert.ok(found, `${file} declares no ${name}`);
  return found;
}

describe("the generated TypeScript SDK", () => {
  let files: Map<string, string>;
  before(async () => {
    files = await formattedSdk();
  });

  it("is what the generator writes from the declarations (npm run gen), each file marked generated", () => {
    assert.ok(files.size >= KIND_NAMES.length + 2, `${files.size} files`);
    for (const [file, text] of files) {
      assert.match(text.split("\n")[0], /^\/\/ @generated .*DO NOT EDIT/, file);
      assert.strictEqual(fs.readFileSync(path.join(SDK, file), "utf8"), text, `sdk/${file} differs from the declarations: run npm run gen`);
    }
  });

  const schema = JSON.parse(schemaJson("0.0.0"));
  for (const kind of KIND_NAMES) {
    it(`${kind}: the class has every output and its Args every input the schema gives the other languages`, () => {
      const resource = schema.resources[typeToken(kind)];
      const file = `${fileOf(kind)}.ts`;
      const missingOutputs = Object.keys(resource.properties).filter((k) => !members(file, kind).includes(k));
      const missingInputs = Object.keys(resource.inputProperties).filter((k) => !members(file, `${kind}Args`).includes(k));
      assert.deepStrictEqual({ missingOutputs, missingInputs }, { missingOutputs: [], missingInputs: [] });
    });
  }
});
