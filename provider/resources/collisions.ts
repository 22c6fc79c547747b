// The collision check of `check`: a resource new to the stack whose libvirt name is
// already taken on the host fails in `pulumi preview`, before anything is made,
// instead of halfway through `pulumi up`.
import { hostPool } from "../pool/host-pool";
import { Libvirt } from "../libvirt/api";
import { HostConfig } from "../ssh/host";
import { Failures, hostLabel, isUnknown } from "./common";

/** One libvirt name the new resource will take, and how to tell whether it is taken. */
export interface Claim {
  property: string;
  /** e.g. `volume "web.qcow2" in pool "default"` */
  what: string;
  /** The remove command a user runs on the host to free it. */
  removal: string;
  taken(lv: Libvirt): Promise<boolean>;
}

/** Adds a failure for each claimed name that exists on the host. Silent when the host cannot be asked (the host check reports that). */
export async function checkClaims(failures: Failures, host: HostConfig, claims: Claim[]): Promise<void> {
  if (failures.length || isUnknown(host) || process.env.PULUMI_KVM_SKIP_HOST_CHECK === "1") return;
  if (claims.some((c) => isUnknown(c.what))) return;
  let taken: Claim[];
  try {
    taken = await hostPool.probe(host, async (lv) => {
      const out: Claim[] = [];
      for (const c of claims) if (await c.taken(lv)) out.push(c);
      return out;
    }, 15_000);
  } catch {
    return;
  }
  for (const c of taken) {
    failures.push({
      property: c.property,
      reason: `${c.what} already exists on ${hostLabel(host)} and is not part of this stack; pulumi-kvm cannot adopt it. Remove it on the host (${c.removal}) or choose another ${c.property}`,
    });
  }
}
