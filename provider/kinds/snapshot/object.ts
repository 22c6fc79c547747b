// A snapshot on its host: taken in one call, so never journalled; gone, or removed by hand.
import type { ObjectFacts } from "../../resources/object-kind";

export const snapshotObject: ObjectFacts = {
  gone: ["NO_DOMAIN_SNAPSHOT", "NO_DOMAIN"],
  removal: (name, domain = "DOMAIN") => `virsh snapshot-delete ${domain} ${name}`,
};
