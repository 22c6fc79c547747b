// The lab's own daemons restarted or killed, as a host's admin or a crash does to its clients:
// libvirtd restarted and sshd killed with its sessions, between two operations (the next one
// heals, no error) and in the middle of an Image upload (the create fails clearly and undoes its
// half-made volume once the host is back). npm test runs this file alone (test/support/suite.ts).
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { imageProvider, ImageInputs } from "../../provider/kinds/image/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { Known, randomFile } from "../support/known-objects";
import { LabEnv, labEnv } from "../support/lab";
import { killSshd, restartLibvirtd } from "../support/lab-faults";
import { tempDir } from "../support/tmp";
import { virsh } from "../support/virsh";

describe("faults of the lab's daemons", function () {
  this.timeout(300_000);
  const tmp = tempDir("daemon-faults-");
  before(() => {
    process.env.PULUMI_KVM_JOURNAL = path.join(tmp, "leftovers.json");
  });
  after(() => {
    delete process.env.PULUMI_KVM_JOURNAL;
  });

  const restarts: [string, string, (lab: LabEnv) => Promise<void>][] = [
    ["libvirtd restarted", "lv", restartLibvirtd],
    ["sshd killed with its sessions and started again", "ssh", (lab) => killSshd(lab, 1, 500)],
  ];
  for (const [what, short, restart] of restarts) {
    it(`${what} between two operations: the next operation redials and succeeds with no error`, async () => {
      const lab = labEnv();
      const known = new Known(lab);
      const host = labHost(lab);
      const vol = (name: string) => checked(volumeProvider, { host, name, capacity: "16MiB" } as VolumeInputs).then((i) => volumeProvider.create(i));
      const a: VolumeOutputs = (await vol(`restart-${short}-a-${process.pid}`)).outs;
      known.volumes.add(a.name);
      await restart(lab);
      const b: VolumeOutputs = (await vol(`restart-${short}-b-${process.pid}`)).outs;
      known.volumes.add(b.name);
      assert.deepStrictEqual(known.orphans(), []);
      await volumeProvider.delete(a.key, a);
      await volumeProvider.delete(b.key, b);
    });
  }

  const midUpload: [string, string, (lab: LabEnv) => Promise<void>][] = [
    ["libvirtd restarted", "lv", restartLibvirtd],
    ["sshd killed with its sessions, back 2.5 s later", "ssh", (lab) => killSshd(lab, 1, 2500)],
  ];
  for (const [what, short, restart] of midUpload) {
    it(`${what} in the middle of an Image upload: the create fails clearly and removes the half-made volume itself once the host is back`, async () => {
      const lab = labEnv();
      const known = new Known(lab);
      const file = path.join(tmp, `mid-${short}.raw`);
      randomFile(file, 512);
      const inputs = await checked(imageProvider, { host: labHost(lab), name: `mid-${short}-${process.pid}.raw`, source: { path: file } } as ImageInputs);
      const creating = imageProvider.create(inputs).then(
        () => undefined,
        (e: Error) => e,
      );
      // in the middle: once its first bytes (the mark that proves it) are on the host
      const allocated = () => {
        try {
          return Number(/^Allocation:\s+(\d+)/m.exec(virsh(["vol-info", "--bytes", "--pool", lab.pool, inputs.name]))?.[1] ?? 0) > 0;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 400 && !allocated(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(allocated(), "the upload began");
      await restart(lab);
      const err = await creating;
      assert.ok(err, "the upload must fail");
      assert.ok(err.message.includes(`creating image default/${inputs.name}`) && /root@127\.0\.0\.1:\d+/.test(err.message), err.message);
      assert.deepStrictEqual(known.orphans(), [], "removed by the create that made it");
      const journal = path.join(tmp, "leftovers.json");
      const journalled = fs.existsSync(journal) ? (JSON.parse(fs.readFileSync(journal, "utf8")) as { name: string }[]).map((e) => e.name) : [];
      assert.ok(!journalled.includes(inputs.name), `nothing left to the journal: ${journalled.join(", ")}`);
      fs.rmSync(file);
    });
  }
});
