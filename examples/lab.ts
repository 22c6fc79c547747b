// Defaults for the examples from the lab (.lab/env, written by scripts/lab up), so
// they run on this machine as they are. On a real host, set the stack config instead.
import * as fs from "fs";
import * as path from "path";

export function labDefaults(): Record<string, string> {
  const file = path.resolve(__dirname, "..", ".lab", "env");
  if (!fs.existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}
