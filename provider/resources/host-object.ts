// The create of an object that stands alone on its host (a storage pool, a network):
// defined under the journal and undone on failure, or, when one of that name exists and
// the resource adopts, taken over. Either way it is then brought to the asked state and
// observed for the outputs.
import { OBJECTS } from "../kinds/objects";
import * as crypto from "crypto";
import { explain, KvmError } from "../errors";
import { Libvirt } from "../libvirt/api";
import { HostConfig } from "../ssh/host";
import { alreadyExists } from "./adopt";
import { hostLabel } from "./host-inputs";
import { HostAccess } from "./context";
import { interruptible } from "./interrupt";
import type { Claims } from "./collisions";
import { clearLeftovers, isJournalled, Made, Making } from "./rollback";
import { uuidHex } from "../uuid";

export interface HostObject<R extends { uuid: Buffer }, O extends { uuid: string }> {
  kind: Made["kind"];
  /** e.g. `storage pool "fast"` */
  what: string;
  find(lv: Libvirt): Promise<R | undefined>;
  /** Checks an existing object against the inputs and applies what an update could. */
  adopt(lv: Libvirt, ref: R): Promise<void>;
  /** Defines it with the UUID chosen for it (the one call the journal covers). */
  define(lv: Libvirt, uuid: string): Promise<R>;
  /** After the definition: what else makes it (a pool's directory). */
  build?(lv: Libvirt, ref: R): Promise<void>;
  /** Brings it to the asked state (running, autostart) and returns the outputs. */
  bringToState(lv: Libvirt, ref: R): Promise<O>;
}

export function createHostObject<R extends { uuid: Buffer }, O extends { uuid: string }>(
  pool: HostAccess,
  inputs: { host: HostConfig; name: string; adopt?: boolean },
  object: HostObject<R, O>,
): Promise<{ id: string; outs: O }> {
  return interruptible(async (signal) => {
    const host = hostLabel(inputs.host);
    const making = new Making(pool, inputs.host);
    try {
      const made = await pool.run(
        inputs.host,
        async (lv) => {
          await clearLeftovers(inputs.host, lv);
          let ref = await object.find(lv);
          if (ref) {
            if (!inputs.adopt) throw alreadyExists(host, object.what, OBJECTS[object.kind].removal(inputs.name));
            await object.adopt(lv, ref);
          } else {
            // its UUID is chosen here, so the journal holds the identity before the object exists
            const uuid = crypto.randomUUID();
            ref = await making.make({ kind: object.kind, name: inputs.name, id: uuidHex(uuid) }, () => object.define(lv, uuid));
            await object.build?.(lv, ref);
          }
          const outs = await object.bringToState(lv, ref);
          return { id: outs.uuid, outs };
        },
        { mutating: true, signal },
      );
      await making.kept();
      return made;
    } catch (err) {
      await making.undo();
      throw explain(err, host, `creating ${object.what}`);
    }
  });
}

/**
 * The object of the recorded name when it has the recorded UUID (the resource's id);
 * `other` when something else has the name now: it is not this resource's to touch.
 */
export async function findRecorded<R extends { uuid: Buffer }>(find: Promise<R | undefined>, uuid: string): Promise<{ ref?: R; other?: R }> {
  const ref = await find;
  if (!ref) return {};
  return ref.uuid.toString("hex") === uuidHex(uuid) ? { ref } : { other: ref };
}

/** The error of an update whose object is gone or someone else's now. */
export function recordedGone(host: string, what: string): KvmError {
  return new KvmError("not-found", `${what} is gone, or the object of that name is not the one this stack made (another UUID)`, {
    host,
    fix: "Run pulumi refresh (the resource then leaves the stack), then pulumi up to make it again under a free name",
  });
}

/**
 * The name an object that stands alone on its host takes (a pool, a network, a network
 * filter), for check's collision step: taken when an object of that name is on the host
 * and is not a leftover of this machine's own interrupted create.
 */
export function nameClaims(host: HostConfig, name: string, kind: Made["kind"], what: string, find: (lv: Libvirt) => Promise<unknown>): Claims {
  return {
    host,
    claims: [
      {
        property: "name",
        what,
        removal: OBJECTS[kind].removal(name),
        taken: async (lv) => !!(await find(lv)) && !(await isJournalled(lv, host, kind, name)),
      },
    ],
  };
}
