// Pure logic of the resources the review found wrong: canonical equality, MACs kept by
// interface identity, the error classes of libvirt's vague codes, the exact codes a
// rollback takes for "already gone", and the bound on every call.
import * as assert from "assert";
import { Duplex } from "stream";
import { classify } from "../../provider/errors";
import { Libvirt, LibvirtError } from "../../provider/libvirt/api";
import { UNKNOWN } from "../../provider/resources/unknown";
import { checkInputs, DomainInputs } from "../../provider/kinds/domain/inputs";
import { interfaceAddresses } from "../../provider/kinds/domain/ip";
import { rpcLibvirt } from "../../provider/libvirt/rpc-libvirt";
import { RpcClient } from "../../provider/rpc/client";
import { ErrorCode } from "../../provider/rpc/error-codes";
import { RpcAbortError } from "../../provider/rpc/errors";
import { deepEqual } from "../../provider/resources/deep-equal";
import { Failures } from "../../provider/resources/input-checks";
import { keptMacs } from "../../provider/kinds/domain/spec";
import { removeLeftover } from "../../provider/resources/rollback";

const libvirtError = (code: string) => new LibvirtError({ code: ErrorCode[code], domain: 0, message: code, level: 2 } as any, "virStorageVolLookupByName");

describe("deepEqual", () => {
  it("does not depend on key order or absent members, at any depth", () => {
    assert.ok(deepEqual({ a: 1, b: { c: 2, d: [1, { e: 1, f: 2 }] } }, { b: { d: [1, { f: 2, e: 1 }], c: 2 }, a: 1 }));
    assert.ok(deepEqual({ a: 1, b: undefined }, { a: 1 }));
    assert.ok(!deepEqual({ a: 1 }, { a: 2 }));
    assert.ok(!deepEqual([1, 2], [2, 1]), "list order matters");
  });
});

describe("keptMacs", () => {
  const current = [
    { mac: "52:54:00:00:00:01", network: "a" },
    { mac: "52:54:00:00:00:02", network: "b" },
  ];
  it("keeps each interface's MAC by its network when NIC 0 is removed", () => {
    assert.deepStrictEqual(keptMacs(current, [{ network: "b" }]), ["52:54:00:00:00:02"]);
  });
  it("keeps MACs when interfaces are reordered, and gives a new interface none (libvirt picks)", () => {
    assert.deepStrictEqual(keptMacs(current, [{ network: "b" }, { network: "c" }, { network: "a" }]), ["52:54:00:00:00:02", undefined, "52:54:00:00:00:01"]);
  });
  it("gives pinned MACs first, never handing a pinned one to another interface", () => {
    assert.deepStrictEqual(keptMacs(current, [{ network: "a" }, { network: "a", mac: "52:54:00:00:00:01" }]), [undefined, "52:54:00:00:00:01"]);
  });
  it("tells a bridge from a network", () => {
    assert.deepStrictEqual(keptMacs([{ mac: "52:54:00:00:00:03", bridge: "br0" }], [{ network: "br0" }, { bridge: "br0" }]), [undefined, "52:54:00:00:00:03"]);
  });
});

describe("error classes", () => {
  for (const code of ["VIR_ERR_INTERNAL_ERROR", "VIR_ERR_OPERATION_FAILED", "VIR_ERR_SYSTEM_ERROR"]) {
    it(`${code} is permanent, not transient`, () => assert.strictEqual(classify(libvirtError(code)).errorClass, "permanent"));
  }
  it("an abandoned call is a timeout", () => assert.strictEqual(classify(new RpcAbortError("virDomainShutdown", "x")).errorClass, "timeout"));
});

describe("rollback", () => {
  const failing = (code: string) =>
    new Proxy(
      {},
      {
        get: () => async () => {
          throw libvirtError(code);
        },
      },
    ) as any;
  for (const code of ["VIR_ERR_NO_STORAGE_VOL", "VIR_ERR_NO_STORAGE_POOL"]) {
    it(`takes ${code} as already gone`, async () => {
      assert.strictEqual(await removeLeftover(failing(code), { kind: "volume", pool: "default", name: "v" }, "hv1"), "gone");
    });
  }
  it("takes VIR_ERR_NO_DOMAIN as already gone", async () => {
    assert.strictEqual(await removeLeftover(failing("VIR_ERR_NO_DOMAIN"), { kind: "domain", name: "d" }, "hv1"), "gone");
  });
  for (const code of ["VIR_ERR_NO_SUPPORT", "VIR_ERR_NO_CONNECT", "VIR_ERR_NO_MEMORY", "VIR_ERR_NO_DOMAIN_METADATA"]) {
    it(`does not take ${code} as gone: the object may still be there`, async () => {
      await assert.rejects(removeLeftover(failing(code), { kind: "volume", pool: "default", name: "v" }, "hv1"), new RegExp(code));
    });
  }
});

describe("the call bound", () => {
  it("abandons a call libvirtd never answers, naming the API, and keeps the link", async () => {
    const silent = new Duplex({
      read() {},
      write(_c, _e, cb) {
        cb();
      },
    });
    const client = new RpcClient(silent, { callTimeoutMs: 200 });
    await assert.rejects(rpcLibvirt(client).shutdownDomain({ name: "vm", uuid: Buffer.alloc(16), id: 1 }), (err: Error) => {
      assert.ok(err instanceof RpcAbortError);
      assert.match(err.message, /virDomainShutdown abandoned: no reply within 0\.2 s \(PULUMI_KVM_CALL_TIMEOUT\)/);
      return true;
    });
    assert.strictEqual(client.closed, false, "a stuck call is not a dead link");
    client.destroy(new Error("done"));
  });

  it("with no bound, a call waits until its reply", async () => {
    const silent = new Duplex({
      read() {},
      write(_c, _e, cb) {
        cb();
      },
    });
    const client = new RpcClient(silent);
    const outcome = await Promise.race([
      rpcLibvirt(client)
        .libVersion()
        .then(
          () => "answered",
          () => "failed",
        ),
      new Promise((r) => setTimeout(() => r("waiting"), 400)),
    ]);
    assert.strictEqual(outcome, "waiting");
    client.destroy(new Error("done"));
  });
});

describe("what a guest reports", () => {
  it("takes an agent's address only when it parses as an address of its family", async () => {
    const addrs = ["10.0.0.5", "10.0.0.5; rm -rf /", "<script>", "999.1.1.1", "0.0.0.0", "127.0.0.1", "192.168.1.7"];
    const lv = {
      interfaceAddresses: async () => [
        { name: "eth0", hwaddr: "52:54:00:AA:BB:CC", addrs: addrs.map((addr) => ({ type: 0, addr, prefix: 24 })) },
        {
          name: "eth1",
          hwaddr: "52:54:00:aa:bb:dd",
          addrs: [
            { type: 1, addr: "fd00::1", prefix: 64 },
            { type: 1, addr: "fd00::1 extra", prefix: 64 },
            { type: 0, addr: "fd00::2", prefix: 64 },
          ],
        },
      ],
    } as unknown as Libvirt;
    const dom = { name: "d", uuid: Buffer.alloc(16), id: 1 };
    assert.deepStrictEqual(await interfaceAddresses(lv, dom, "agent", "ipv4"), [
      { mac: "52:54:00:aa:bb:cc", addresses: ["10.0.0.5", "192.168.1.7"] },
      { mac: "52:54:00:aa:bb:dd", addresses: [] },
    ]);
    assert.deepStrictEqual((await interfaceAddresses(lv, dom, "agent", "ipv6"))[1].addresses, ["fd00::1"]);
  });

  it("never shows a secret input's value in check's error: an invalid cloudInit.hostname", () => {
    const failures: Failures = [];
    checkInputs({ host: { address: "h" }, name: "d", disks: [{ volume: "v" }], cloudInit: { hostname: "SECRET_host_name" } }, failures);
    const hostname = failures.find((f) => f.property === "cloudInit.hostname");
    assert.ok(hostname, JSON.stringify(failures));
    assert.doesNotMatch(hostname.reason, /SECRET/);
  });

  it("lets a raw disk on a Volume made in the same run through preview, its base not known yet; refuses a base stated for a raw disk", () => {
    const disk = (backing: unknown) =>
      ({ host: { address: "h" }, name: "d", disks: [{ volume: "data.raw", format: "raw" as const, backing }] }) as DomainInputs;
    const preview: Failures = [];
    checkInputs(disk(UNKNOWN), preview);
    assert.deepStrictEqual(preview, []);
    const stated: Failures = [];
    checkInputs(disk({ path: "/var/lib/libvirt/images/base.qcow2", format: "qcow2" }), stated);
    assert.deepStrictEqual(
      stated.map((f) => f.property),
      ["disks[0].backing"],
    );
  });
});
