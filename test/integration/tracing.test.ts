// The tracing decorator: one line per libvirt call after it returns, by level.
import * as assert from "assert";
import { setLogSink } from "../../provider/log";
import { HostPool } from "../../provider/pool/host-pool";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";

describe("RPC tracing", function () {
  this.timeout(60_000);
  const pool = new HostPool();
  let lines: string[] = [];
  before(() => setLogSink((l) => lines.push(l)));
  after(async () => {
    setLogSink(undefined);
    delete process.env.PULUMI_KVM_LOG;
    await pool.closeAll();
  });

  const run = async (level: string) => {
    process.env.PULUMI_KVM_LOG = level;
    lines = [];
    const lab = labEnv();
    await pool.run(labHost(lab), async (lv) => {
      const p = await lv.lookupPool(lab.pool);
      await lv.lookupVolume(p, "no-such-volume").catch(() => undefined);
      await lv.poolXml(p);
    });
    return lines;
  };

  it("logs nothing at level 0", async () => {
    assert.deepStrictEqual(await run("0"), []);
  });

  it("logs one line per call at level 1: API name, identifiers, results, duration, libvirt's code on failure", async () => {
    const got = await run("1");
    const calls = got.filter((l) => l.includes(" rpc="));
    assert.strictEqual(calls.length, 3, got.join("\n"));
    assert.match(
      calls[0],
      /^pulumi-kvm host=root@127\.0\.0\.1:\d+ rpc=virStoragePoolLookupByName pool=default uuid=[0-9a-f]{32} peak=\d+ queued=\d+ dur=\d+ms$/,
    );
    assert.match(calls[1], /rpc=virStorageVolLookupByName vol=default\/no-such-volume error=".*" code=50 codeName=VIR_ERR_NO_STORAGE_VOL dur=\d+ms$/);
    assert.match(calls[2], /rpc=virStoragePoolGetXMLDesc pool=default peak=\d+ queued=\d+ dur=/);
    assert.ok(!got.some((l) => l.includes("xml=")), "no XML below level 2");
  });

  it("adds the XML at level 2", async () => {
    const got = await run("2");
    assert.ok(
      got.some((l) => /rpc=virStoragePoolGetXMLDesc xml="<pool type=/.test(l)),
      got.join("\n"),
    );
  });
});
