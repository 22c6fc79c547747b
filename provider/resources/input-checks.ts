// What check reports about inputs, and the checks every kind's inputs share: names of
// libvirt objects, true/false values, MACs and interface names.
import { isUnknown } from "./unknown";

export interface CheckFailure {
  property: string;
  reason: string;
}

export type Failures = CheckFailure[];

/** Reports one property's failure; the reason follows the property's name. */
export function reporter(failures: Failures): (property: string, reason: string) => void {
  return (property, reason) => failures.push({ property, reason: `${property}: ${reason}` });
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
export const MAX_NAME = 100;

/** A libvirt object name: no "/", no "..", no spaces or XML-special characters. */
export function nameProblem(v: unknown): string | undefined {
  if (v === undefined || v === null || v === "") return "is required";
  if (typeof v !== "string") return `must be a string, got ${typeof v}`;
  if (v.length > MAX_NAME) return `"${v.slice(0, 20)}…" is ${v.length} characters; at most ${MAX_NAME} are allowed`;
  if (v.includes("/")) return `"${v}" contains "/": names become file names in the pool; use letters, digits, ".", "_", "-", "+"`;
  if (v.includes("..")) return `"${v}" contains "..": use letters, digits and single dots`;
  if (!NAME_RE.test(v)) return `"${v}" has characters libvirt names should not have; use letters, digits, ".", "_", "-", "+", starting with a letter or digit`;
  return undefined;
}

export function checkName(failures: Failures, property: string, v: unknown): void {
  if (isUnknown(v)) return;
  const p = nameProblem(v);
  if (p) failures.push({ property, reason: `${property} ${p}` });
}

/** The olds `check` was given when the resource is in the stack (the engine sends {} for a new one). */
export function recorded<T extends { host?: unknown; name?: unknown }>(olds: T | undefined): T | undefined {
  return olds?.host && olds.name ? olds : undefined;
}

/** A true/false input, when given. */
export function checkBoolean(failures: Failures, property: string, v: unknown): void {
  if (v !== undefined && !isUnknown(v) && typeof v !== "boolean")
    failures.push({ property, reason: `${property} must be true or false, got ${JSON.stringify(v)}` });
}

export const MAC_RE = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

/** A Linux network interface name (a bridge, a NIC): at most 15 characters. */
export const IFACE_RE = /^[A-Za-z0-9_.-]{1,15}$/;
