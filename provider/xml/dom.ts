// Reading libvirt XML back: a parsed DOM and small path helpers ("target/format@type").
import { create } from "xmlbuilder2";

/** The part of the DOM (as xmlbuilder2 parses it) that reading libvirt XML needs. */
export interface El {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: { length: number; [i: number]: El };
  getAttribute(name: string): string | null;
}

export function parseXml(xml: string): El {
  return create(xml).root().node as unknown as El;
}

export function children(el: El | undefined, name: string): El[] {
  if (!el) return [];
  const out: El[] = [];
  for (let i = 0; i < el.childNodes.length; i++) {
    const n = el.childNodes[i];
    if (n.nodeType === 1 && n.nodeName === name) out.push(n);
  }
  return out;
}

export function child(el: El | undefined, name: string): El | undefined {
  return children(el, name)[0];
}

/** Follows "a/b/c" from `el`; with "@attr" at the end returns that attribute, else the text. */
export function at(el: El | undefined, path: string): string | undefined {
  const [elPath, attr] = path.split("@");
  let cur: El | undefined = el;
  for (const step of elPath.split("/").filter(Boolean)) cur = child(cur, step);
  if (!cur) return undefined;
  if (attr !== undefined) return cur.getAttribute(attr) ?? undefined;
  return cur.textContent ?? undefined;
}

/** An element found by path, for iterating its children. */
export function node(el: El | undefined, path: string): El | undefined {
  let cur = el;
  for (const step of path.split("/").filter(Boolean)) cur = child(cur, step);
  return cur;
}
