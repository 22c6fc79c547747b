// The generated SDK files as they are committed: rendered, then formatted with the
// repository's Prettier settings (so the check compares like with like).
import * as path from "path";
import * as prettier from "prettier";
import { renderSdk } from "./typescript";

export async function formattedSdk(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [file, text] of renderSdk()) {
    const filepath = path.join(__dirname, "..", "..", "sdk", file);
    const options = (await prettier.resolveConfig(filepath)) ?? {};
    out.set(file, await prettier.format(text, { ...options, filepath }));
  }
  return out;
}
