// The lab itself: libvirtd answers through the lab's sshd with the generated key and a
// verified host key, the pool and network are up, and the guest image boots and takes
// a DHCP lease carrying the hostname from its NoCloud seed. Everything here uses the
// system's own tools (virsh, genisoimage) so the lab is proven independently of the
// project's code.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { create } from "xmlbuilder2";
import { labEnv } from "../support/lab";
import { domainNames, leases, mine, sshUri, virsh, volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

describe("lab", function () {
  this.timeout(120_000);

  it("answers libvirt calls through sshd with the lab key and a verified host key", () => {
    const lab = labEnv();
    assert.ok(virsh(["hostname"], sshUri(lab)).length > 0);
    const wrong = path.join(tempDir("kh-"), "known_hosts");
    // a different ed25519 key for the same host:port must be refused
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong + ".key"]);
    fs.writeFileSync(
      wrong,
      `[${lab.host}]:${lab.port} ${fs
        .readFileSync(wrong + ".key.pub", "utf8")
        .split(" ")
        .slice(0, 2)
        .join(" ")}\n`,
    );
    assert.throws(() => virsh(["hostname"], sshUri(lab, wrong)), /HOST KEY VERIFICATION FAILED/);
  });

  it("has its pool running and its networks active", () => {
    const lab = labEnv();
    assert.match(virsh(["pool-info", lab.pool], sshUri(lab)), /State:\s+running/);
    assert.match(virsh(["net-info", lab.network], sshUri(lab)), /Active:\s+yes/);
    assert.match(virsh(["net-info", lab.networkNoDhcp], sshUri(lab)), /Active:\s+yes/);
  });

  it("boots the guest image, whose DHCP lease carries the hostname from its seed", async () => {
    const lab = labEnv();
    const name = `labtest-${process.pid}`;
    const hostname = `lab-${Date.now().toString(36)}`;
    const dir = tempDir("seed-");
    fs.writeFileSync(path.join(dir, "meta-data"), `instance-id: ${hostname}\nlocal-hostname: ${hostname}\n`);
    fs.writeFileSync(path.join(dir, "user-data"), "#cloud-config\n");
    const iso = path.join(dir, "seed.iso");
    execFileSync("genisoimage", ["-quiet", "-o", iso, "-V", "cidata", "-J", "-r", path.join(dir, "user-data"), path.join(dir, "meta-data")]);
    const before = mine(volumeNames(lab));
    const upload = (vol: string, file: string, format: string) => {
      virsh(["vol-create-as", lab.pool, vol, String(fs.statSync(file).size), "--format", format]);
      virsh(["vol-upload", "--pool", lab.pool, vol, file]);
    };
    try {
      upload(`${name}-base.qcow2`, lab.image, "qcow2");
      const basePath = virsh(["vol-path", "--pool", lab.pool, `${name}-base.qcow2`]);
      virsh(["vol-create-as", lab.pool, `${name}.qcow2`, "128M", "--format", "qcow2", "--backing-vol", basePath, "--backing-vol-format", "qcow2"]);
      upload(`${name}-seed.iso`, iso, "raw");
      const vol = (v: string) => virsh(["vol-path", "--pool", lab.pool, v]);
      const xml = create({ version: "1.0" })
        .ele("domain", { type: "qemu" })
        .ele("name")
        .txt(name)
        .up()
        .ele("memory", { unit: "MiB" })
        .txt("256")
        .up()
        .ele("vcpu")
        .txt("1")
        .up()
        .ele("os")
        .ele("type", { arch: "x86_64", machine: "pc" })
        .txt("hvm")
        .up()
        .ele("boot", { dev: "hd" })
        .up()
        .up()
        .ele("features")
        .ele("acpi")
        .up()
        .up()
        .ele("devices")
        .ele("disk", { type: "file", device: "disk" })
        .ele("driver", { name: "qemu", type: "qcow2" })
        .up()
        .ele("source", { file: vol(`${name}.qcow2`) })
        .up()
        .ele("target", { dev: "vda", bus: "virtio" })
        .up()
        .up()
        .ele("disk", { type: "file", device: "cdrom" })
        .ele("driver", { name: "qemu", type: "raw" })
        .up()
        .ele("source", { file: vol(`${name}-seed.iso`) })
        .up()
        .ele("target", { dev: "hdc", bus: "ide" })
        .up()
        .ele("readonly")
        .up()
        .up()
        .ele("interface", { type: "network" })
        .ele("source", { network: lab.network })
        .up()
        .ele("model", { type: "virtio" })
        .up()
        .up()
        .up()
        .end();
      const xmlFile = path.join(dir, "domain.xml");
      fs.writeFileSync(xmlFile, xml);
      virsh(["define", xmlFile]);
      virsh(["start", name]);
      const deadline = Date.now() + 90_000;
      let lease: { hostname: string; ip: string } | undefined;
      while (!lease && Date.now() < deadline) {
        lease = leases(lab.network).find((l) => l.hostname === hostname);
        if (!lease) await new Promise((r) => setTimeout(r, 1000));
      }
      assert.ok(lease, `no DHCP lease with hostname ${hostname} on ${lab.network} within 90 s`);
      assert.match(lease.ip, /^\d+\.\d+\.\d+\.\d+$/);
    } finally {
      try {
        virsh(["destroy", name]);
      } catch {
        /* not running */
      }
      try {
        virsh(["undefine", name]);
      } catch {
        /* not defined */
      }
      for (const v of [`${name}.qcow2`, `${name}-seed.iso`, `${name}-base.qcow2`]) {
        try {
          virsh(["vol-delete", "--pool", lab.pool, v]);
        } catch {
          /* not created */
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepStrictEqual(mine(volumeNames(lab)), before);
    assert.ok(!domainNames().includes(name));
  });
});
