import * as assert from "assert";
import { routedSubnets } from "../support/subnet";

describe("the subnets the machine routes (test support)", () => {
  it("reads /proc/net/route's little-endian words and skips the default route", () => {
    const table = [
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
      "eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
      "virbr1\t00BCA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
      "kvmlab0\t0096A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
    ].join("\n");
    assert.deepStrictEqual([...routedSubnets(table)].sort(), ["192.168.150", "192.168.188"]);
  });
});
