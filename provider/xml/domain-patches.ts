// A Domain's xmlPatches, applied to the domain XML the provider builds: each patch's XPath
// selects nodes; `add` appends an XML fragment as the last child of each, `set` sets an
// attribute's value or an element's text, `remove` deletes them. What the provider manages
// (the name, UUID and ownership marker, the disks with the seed, the NICs) never changes.
import { DOMParser, Node, XMLSerializer } from "@xmldom/xmldom";
import * as xpath from "xpath";
import { KvmError } from "../kvm-error";

export interface XmlPatch {
  xpath: string;
  add?: string;
  set?: string;
  remove?: boolean;
}

/** What the provider manages, by where it sits: a patch that changes any of it is refused. */
const MANAGED: [string, string][] = [
  ["/domain/name", "the domain's name"],
  ["/domain/uuid", "its UUID"],
  ["/domain/metadata", "pulumi-kvm's ownership marker"],
  ["/domain/devices/disk", "its disks (and the cloud-init seed)"],
  ["/domain/devices/interface", "its NICs"],
];

/** A patch that cannot apply: which one, which of its fields (its `property`), and why. */
export class PatchError extends KvmError {
  constructor(index: number, field: keyof XmlPatch, reason: string) {
    super("permanent", reason, { property: `xmlPatches[${index}].${field}` });
  }
}

/** Parses XML; undefined with the parser's first complaint when it is not well formed. */
function parse(xml: string): { doc?: Document; error?: string } {
  let error: string | undefined;
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning") error ??= message;
    },
  });
  try {
    const doc = parser.parseFromString(xml, "text/xml") as unknown as Document;
    return error ? { error } : { doc };
  } catch (err) {
    return { error: error ?? (err as Error).message };
  }
}

const serialize = (n: unknown) => new XMLSerializer().serializeToString(n as Node);

/** Each managed part as it is now, serialized. */
const managedState = (doc: Document) => MANAGED.map(([path]) => (xpath.select(path, doc as never) as unknown[]).map(serialize).join(""));

function select(doc: Document, patch: XmlPatch, index: number): globalThis.Node[] {
  let found: xpath.SelectReturnType;
  try {
    found = xpath.select(patch.xpath, doc);
  } catch (err) {
    throw new PatchError(index, "xpath", `is not an XPath expression (${(err as Error).message})`);
  }
  if (!Array.isArray(found)) throw new PatchError(index, "xpath", `selects a value (${JSON.stringify(found)}), not nodes: select elements or attributes`);
  if (found.length === 0) throw new PatchError(index, "xpath", `"${patch.xpath}" matches nothing in the domain XML pulumi-kvm builds`);
  return found;
}

function applyOne(doc: Document, patch: XmlPatch, index: number): void {
  const nodes = select(doc, patch, index);
  if (patch.add !== undefined) {
    const { doc: parsed, error } = parse(`<fragment>${patch.add}</fragment>`);
    if (!parsed) throw new PatchError(index, "add", `is not well-formed XML (${error})`);
    const fragment = parsed.documentElement;
    for (const target of nodes) {
      if (target.nodeType !== 1) throw new PatchError(index, "add", `adds to a ${target.nodeName} that is not an element: select an element`);
      for (let c = fragment.firstChild; c; c = c.nextSibling) target.appendChild(doc.importNode(c, true));
    }
  } else if (patch.set !== undefined) {
    for (const n of nodes) {
      if (n.nodeType === 2) (n as Attr).value = patch.set;
      else n.textContent = patch.set;
    }
  } else {
    for (const n of nodes) {
      if (n.nodeType === 2) (n as Attr).ownerElement?.removeAttributeNode(n as Attr);
      else n.parentNode?.removeChild(n);
    }
  }
}

/** The domain XML with the patches applied in order; a PatchError names the first that cannot apply or touches what pulumi-kvm manages. */
export function applyPatches(xml: string, patches: readonly XmlPatch[]): string {
  if (patches.length === 0) return xml;
  const { doc, error } = parse(xml);
  if (!doc) throw new Error(`the domain XML pulumi-kvm built does not parse (${error})`);
  let before = managedState(doc);
  patches.forEach((patch, index) => {
    applyOne(doc, patch, index);
    const after = managedState(doc);
    const touched = MANAGED.filter((_, i) => after[i] !== before[i]).map(([, what]) => what);
    if (touched.length)
      throw new PatchError(index, "xpath", `changes ${touched.join(" and ")}, which pulumi-kvm manages: change those through the Domain's own inputs`);
    before = after;
  });
  return serialize(doc);
}
