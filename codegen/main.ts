// `npm run gen`: writes the TypeScript SDK's generated files (codegen/typescript.ts) into
// sdk/, formatted as the repository is; a unit test fails when they differ from the declarations.
import * as fs from "fs";
import * as path from "path";
import { formattedSdk } from "./formatted";

const SDK = path.join(__dirname, "..", "..", "sdk");

void formattedSdk().then((files) => {
  for (const [file, text] of files) fs.writeFileSync(path.join(SDK, file), text);
  console.log(`gen: ${files.size} files of sdk/ written`);
});
