// docs/resources.md's reference tables, rendered from the kinds' declarations: `npm run
// docs` writes them between their markers, and a unit test fails when the file and the
// declarations disagree.
import * as fs from "fs";
import * as path from "path";
import { DECLARATIONS as BY_KIND, OBJECT_TYPES } from "../../provider/kinds";
import { Field } from "../../provider/resources/object-types";
import { ChangeClass, Declaration, Property } from "../../provider/resources/properties";

export const DECLARATIONS: Declaration<any, any>[] = Object.values(BY_KIND);

export const DOCS_FILE = path.join(__dirname, "../../../docs/resources.md");

const CHANGES: Record<ChangeClass, string> = {
  replace: "replaces",
  restart: "redefines, one graceful restart",
  live: "applied live",
  record: "recorded only",
};

/** A table cell: a literal "|" would end it. */
const cell = (text: string) => text.replace(/(?<!\\)\|/g, "\\|");

function defaultOf(p: Property<unknown, unknown>): string {
  if (p.default !== undefined) return `\`${JSON.stringify(p.default)}\``;
  if (p.defaultDoc) return p.defaultDoc;
  return p.required ? "required" : "—";
}

function changeOf(p: Property<unknown, unknown>): string {
  if (p.hint) return "not compared";
  return CHANGES[p.change] + (p.restartWhen ? `; a restart for ${p.restartWhen.doc}` : "") + (p.replaceWhen ? `; replaces on ${p.replaceWhen.doc}` : "");
}

/** An object type as a table shows it: `{ start, end, hosts? }`. */
const shape = (name: string) =>
  `{ ${Object.entries<Field>(OBJECT_TYPES[name].fields)
    .map(([k, f]) => `${k}${f.required ? "" : "?"}`)
    .join(", ")} }`;

/** A declared type as the table shows it: object types spelled out as their fields (Host has its own page, docs/connection.md). */
const shownType = (type: string) =>
  type.replace(/\b(?!Host\b)([A-Z]\w*)(\[\])?/g, (name, t: string, list?: string) => (t in OBJECT_TYPES ? (list ? `[${shape(t)}]` : shape(t)) : name));

/** One kind's reference table: every input a user writes, its type, default and how a change applies. */
export function propertyTable(decl: Declaration<any, any>): string {
  const rows = ["| input | type | default | a change | |", "|---|---|---|---|---|"];
  for (const [name, p] of Object.entries<Property<unknown, unknown>>(decl.properties)) {
    if (p.bySdk) continue;
    rows.push(`| \`${name}\` | ${cell(shownType(p.type))}${p.secret ? " (secret)" : ""} | ${cell(defaultOf(p))} | ${cell(changeOf(p))} | ${cell(p.doc)} |`);
    if (!p.listFields) continue;
    for (const [field, f] of Object.entries<Field>(OBJECT_TYPES[p.type].fields))
      rows.push(`| \`${name}.${field}\` | ${cell(shownType(f.type))} | ${f.required ? "required" : "—"} | as \`${name}\` | ${cell(f.doc)} |`);
  }
  return rows.join("\n");
}

const kebab = (kind: string) => kind.replace(/(?<=.)([A-Z])/g, "-$1").toLowerCase();
const begin = (kind: string) => `<!-- ${kind} inputs: generated from provider/kinds/${kebab(kind)}/declaration.ts by npm run docs -->`;
const END = "<!-- end of generated inputs -->";

/** The docs text with every kind's table replaced by its rendering. */
export function renderDocs(text: string): string {
  let out = text;
  for (const decl of DECLARATIONS) {
    const start = out.indexOf(begin(decl.kind));
    if (start < 0) throw new Error(`docs/resources.md has no marker ${begin(decl.kind)}`);
    const end = out.indexOf(END, start);
    out = `${out.slice(0, start)}${begin(decl.kind)}\n${propertyTable(decl)}\n${out.slice(end)}`;
  }
  return out;
}

if (require.main === module) {
  fs.writeFileSync(DOCS_FILE, renderDocs(fs.readFileSync(DOCS_FILE, "utf8")));
}
