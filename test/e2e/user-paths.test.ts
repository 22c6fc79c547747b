// What users do, through the real Pulumi CLI (the dynamic-provider host serializes
// every result): the smallest programs, sizes libvirt rounds, another checkout
// directory, a rotated key, a pinned MAC reused, a name already taken on the host.
// Every object is named with a per-run tag (test/programs/user). What crosses the
// Node/SDK pair (serialized results, Outputs of arrays, secrets, the smallest programs,
// check's failures) runs on every leg; what only the provider decides (libvirt's sizes,
// file identity, URL images and checksum files, a copy bounded by its progress, leases) on the first.
import * as assert from "assert";
import * as crypto from "crypto";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { FileServer } from "../support/http-server";
import { labEnv } from "../support/lab";
import { itOnFirstLeg, legProject, programFiles, programIn, testLegs, programEnv } from "../support/package";
import { domainNames, leases, mine, virsh, volumeNames } from "../support/virsh";
import { assertDomainXmlValid } from "../support/xml-schema";
import { tempDir } from "../support/tmp";

for (const leg of testLegs()) {
  const tag = `${process.pid}${leg.name}`;
  const firstLeg = (title: string, fn: Mocha.AsyncFunc) => itOnFirstLeg(leg, title, fn);

  /** test/programs/user installed as `programs/NAME` of the leg's project (the package from its tarball). */
  const userProgram = (name: string) => programIn(legProject(leg), name, programFiles("user"));
  const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));
  let runs = 0;

  /** A stack of the user program with a fresh prefix; everything it made is destroyed after. */
  async function userStack(config: Record<string, string>, workDir = userProgram("user"), backend?: string): Promise<E2eStack & { prefix: string }> {
    const prefix = `up${tag}x${++runs}`;
    const e = await e2eStack(workDir, `u${tag}x${runs}`, { prefix, ...config }, programEnv(legProject(leg)), backend);
    return Object.assign(e, { prefix });
  }

  /** Destroys a case's stack; first, each VM it made, as libvirt stores it, must pass libvirt's schema. */
  async function finish(e: E2eStack | undefined): Promise<void> {
    if (!e) return;
    let invalid: unknown;
    try {
      for (const d of domainNames().filter((n) => n.startsWith(`up${tag}x`))) assertDomainXmlValid(d);
    } catch (err) {
      invalid = err;
    }
    await e.stack.destroy().catch(() => undefined);
    await e.remove();
    if (invalid) throw invalid;
  }

  describe(`e2e [${leg.name}]: what users do`, function () {
    this.timeout(600_000);
    let volumesBefore: string[];
    let domainsBefore: string[];

    before(() => {
      volumesBefore = mine(volumeNames(labEnv()));
      domainsBefore = mine(domainNames());
    });
    after(() => {
      assert.deepStrictEqual(mine(volumeNames(labEnv())), volumesBefore, "every case cleaned up its volumes");
      assert.deepStrictEqual(mine(domainNames()), domainsBefore, "every case cleaned up its domains");
    });

    it("creates a minimal Domain (one disk; no NIC, cloud-init or waitForIp) and shows no diff after", async () => {
      const e = await userStack({ domain: "minimal" });
      try {
        const up = await e.stack.up();
        assert.strictEqual(up.summary.result, "succeeded");
        assert.strictEqual(up.outputs.state.value, "running");
        assert.strictEqual(up.outputs.ip?.value, undefined, "no address asked, none given");
        assert.match(virsh(["domstate", `${e.prefix}-vm`]), /running/);
        assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 4 });
        const r = await e.stack.refresh();
        assert.deepStrictEqual(only(r.summary.resourceChanges ?? {}), { same: 4 });
      } finally {
        await finish(e);
      }
    });

    it("takes disks and networkInterfaces as Outputs of arrays (pulumi.all(...).apply), boots, and previews no diff after", async () => {
      const e = await userStack({ domain: "net", arrays: "outputs" });
      try {
        const preview = await e.stack.preview();
        assert.deepStrictEqual(only(preview.changeSummary), { create: 4 }, "an unknown array in preview is not an error");
        const up = await e.stack.up();
        assert.strictEqual(up.summary.result, "succeeded");
        assert.match(up.outputs.ip.value, /^\d+\.\d+\.\d+\.\d+$/);
        assert.match(virsh(["domblklist", `${e.prefix}-vm`]), new RegExp(`${e.prefix}-disk`));
        assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 4 });
      } finally {
        await finish(e);
      }
    });

    firstLeg("makes an Image from an http URL (streamed, checksum verified) and its overlay, then previews no diff", async () => {
      const lab = labEnv();
      const server = await FileServer.start(lab.image);
      const digest = crypto.createHash("sha256").update(fs.readFileSync(lab.image)).digest("hex");
      const e = await userStack({ imageUrl: server.url(), imageSha256: digest });
      try {
        const up = await e.stack.up();
        assert.strictEqual(up.summary.result, "succeeded");
        assert.strictEqual(up.outputs.imageSha256.value, digest);
        assert.ok(volumeNames(lab).includes(`${e.prefix}-image`));
        assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 3 });
      } finally {
        await finish(e);
        await server.close();
      }
    });

    firstLeg("makes Images verified by a published SHA512SUMS file (checksumUrl) and by a sha512, and refuses other bytes in preview", async () => {
      const lab = labEnv();
      const sha512 = crypto.createHash("sha512").update(fs.readFileSync(lab.image)).digest("hex");
      const dir = tempDir("sums-");
      fs.writeFileSync(path.join(dir, "SHA512SUMS"), `${"1".repeat(128)}  other.qcow2\n${sha512}  image.qcow2\n`);
      const [server, sums] = [await FileServer.start(lab.image), await FileServer.start(path.join(dir, "SHA512SUMS"))];
      const e = await userStack({ imageUrl: server.url("image.qcow2"), imageChecksumUrl: sums.url("SHA512SUMS") });
      const pinned = await userStack({ imageUrl: server.url("image.qcow2"), imageSha512: sha512 });
      try {
        for (const s of [e, pinned]) {
          const up = await s.stack.up();
          assert.strictEqual(up.summary.result, "succeeded");
          assert.strictEqual(up.outputs.imageSha512.value, sha512);
          assert.deepStrictEqual(only((await s.stack.preview()).changeSummary), { same: 3 });
        }
        // a checksum file without a line for the image's name fails the preview, naming the property
        await e.stack.setConfig("imageUrl", { value: server.url("renamed.qcow2") });
        await assert.rejects(e.stack.preview(), /source\.checksumUrl.*no sha256 or sha512 line for "renamed\.qcow2"/s);
      } finally {
        await finish(e);
        await finish(pinned);
        await server.close();
        await sums.close();
      }
    });

    firstLeg("copies a large volume (cloneOf) under a 1 s PULUMI_KVM_CALL_TIMEOUT: the copy is bounded by its progress", async () => {
      const dir = tempDir("bigimg-");
      const big = path.join(dir, "big.raw");
      const fd = fs.openSync(big, "w");
      for (let i = 0; i < 128; i++) fs.writeSync(fd, crypto.randomBytes(16 * 1024 * 1024));
      fs.closeSync(fd);
      const prefix = `up${tag}xcopy`;
      const e = await e2eStack(
        userProgram("copy"),
        `u${tag}xcopy`,
        { prefix, imagePath: big, disk: "copy" },
        { ...programEnv(legProject(leg)), PULUMI_KVM_CALL_TIMEOUT: "1", PULUMI_KVM_LOG: "1" },
      );
      try {
        const up = await e.stack.up();
        assert.strictEqual(up.summary.result, "succeeded");
        const copy = /rpc=virStorageVolCreateXMLFrom .* dur=(\d+)ms/.exec(up.stdout + up.stderr);
        assert.ok(copy, "the copy's trace line");
        assert.ok(Number(copy[1]) > 1300, `the copy took ${copy[1]} ms: longer than the 1 s bound, or it proves nothing`);
        assert.strictEqual(up.outputs.capacityBytes.value, 2048 * 1024 * 1024);
      } finally {
        // the clean-up under the default bound: libvirt's delete of a fully allocated 2 GiB copy can take over 1 s itself
        delete e.stack.workspace.envVars.PULUMI_KVM_CALL_TIMEOUT;
        await finish(e);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    firstLeg('never diffs on sizes libvirt rounds (1000001, "1.5GB", "10GB"), and shrinking below the request replaces', async () => {
      const e = await userStack({ disk: "blank", capacity: "1000001" });
      try {
        for (const capacity of ["1000001", "1.5GB", "10GB"]) {
          await e.stack.setConfig("capacity", { value: capacity });
          const up = await e.stack.up();
          assert.strictEqual(up.summary.result, "succeeded");
          assert.ok(up.outputs.capacityBytes.value >= Number(capacity.replace("1.5GB", "1500000000").replace("10GB", "10000000000")));
          assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 3 }, `no diff after up with capacity ${capacity}`);
        }
        await e.stack.setConfig("capacity", { value: "1.5GB" });
        const shrink = await e.stack.preview({ diff: true });
        assert.deepStrictEqual(only(shrink.changeSummary), { same: 2, replace: 1 });
      } finally {
        await finish(e);
      }
    });

    firstLeg(
      'previews another checkout of the same stack (image path "./img.qcow2") with no replace, and replaces the image and its overlay for other bytes',
      async () => {
        const lab = labEnv();
        const checkouts = ["checkout-a", "checkout-b"].map(userProgram);
        for (const dir of checkouts) fs.copyFileSync(lab.image, path.join(dir, "img.qcow2"));
        const e = await userStack({ imagePath: "./img.qcow2" }, checkouts[0]);
        let other: E2eStack | undefined;
        try {
          const first = await e.stack.up();
          other = await e2eStack(checkouts[1], e.stack.name, {}, programEnv(legProject(leg)), e.backend);
          fs.copyFileSync(path.join(checkouts[0], `Pulumi.${e.stack.name}.yaml`), path.join(checkouts[1], `Pulumi.${e.stack.name}.yaml`));
          assert.deepStrictEqual(only((await other.stack.preview()).changeSummary), { same: 3 }, "the same bytes from another directory");
          // a moved file with the same bytes, and the sha256 that matches: at most an update
          fs.renameSync(path.join(checkouts[1], "img.qcow2"), path.join(checkouts[1], "moved.qcow2"));
          await other.stack.setConfig("imagePath", { value: "./moved.qcow2" });
          const moved = await other.stack.preview();
          assert.ok(!moved.changeSummary.replace && !moved.changeSummary.create, JSON.stringify(moved.changeSummary));
          // other bytes replace the image and, through it, the volume
          fs.appendFileSync(path.join(checkouts[1], "moved.qcow2"), Buffer.alloc(512));
          const changed = await other.stack.preview();
          assert.strictEqual(changed.changeSummary.replace, 2, JSON.stringify(changed.changeSummary));
          // and up replaces them: the image delete-before-replace takes its overlay with it,
          // and neither name counts as taken by a stranger
          const replaced = await other.stack.up();
          assert.strictEqual(replaced.summary.result, "succeeded");
          assert.strictEqual(replaced.summary.resourceChanges?.replace, 2);
          assert.notStrictEqual(replaced.outputs.imageSha256.value, first.outputs.imageSha256.value, "the new bytes were uploaded");
        } finally {
          await finish(e);
          if (other) fs.rmSync(path.join(checkouts[1], `Pulumi.${e.stack.name}.yaml`), { force: true });
          for (const dir of checkouts) fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );

    firstLeg("fails preview, before anything is made, for a disk smaller than its local image, naming both sizes", async () => {
      const e = await userStack({ capacity: "32MiB" });
      try {
        await assert.rejects(e.stack.preview(), /capacity 33554432 bytes is smaller than the image's virtual size of 67108864 bytes/);
        assert.deepStrictEqual(
          volumeNames(labEnv()).filter((v) => v.startsWith(e.prefix)),
          [],
        );
      } finally {
        await finish(e);
      }
    });

    firstLeg("refreshes and destroys a stack from another checkout after the first is gone: a relative key path is recorded as written", async () => {
      const lab = labEnv();
      const checkouts = ["rel-a", "rel-b"].map(userProgram);
      for (const dir of checkouts) {
        fs.copyFileSync(lab.image, path.join(dir, "img.qcow2"));
        fs.copyFileSync(lab.key, path.join(dir, "id_lab"));
        fs.chmodSync(path.join(dir, "id_lab"), 0o600);
      }
      const e = await userStack({ imagePath: "./img.qcow2", privateKeyPath: "./id_lab" }, checkouts[0]);
      let other: E2eStack | undefined;
      try {
        assert.strictEqual((await e.stack.up()).summary.result, "succeeded");
        const recorded = (await e.stack.exportStack()).deployment.resources.find((r: { type: string }) => r.type.endsWith("kvm:Image"));
        assert.strictEqual(recorded.outputs.host.privateKeyPath, "./id_lab", "recorded as written");
        other = await e2eStack(checkouts[1], e.stack.name, {}, programEnv(legProject(leg)), e.backend);
        fs.copyFileSync(path.join(checkouts[0], `Pulumi.${e.stack.name}.yaml`), path.join(checkouts[1], `Pulumi.${e.stack.name}.yaml`));
        fs.rmSync(checkouts[0], { recursive: true, force: true });
        // refresh and destroy use what the stack recorded: its key resolves in this checkout
        await other.stack.refresh({ expectNoChanges: true });
        assert.strictEqual((await other.stack.destroy()).summary.result, "succeeded");
        assert.deepStrictEqual(
          volumeNames(lab).filter((v) => v.startsWith(e.prefix)),
          [],
        );
      } finally {
        await finish(e).catch(() => undefined);
        for (const dir of checkouts) fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    firstLeg("rotates the SSH key: up records the new one without touching the host, then destroy works", async () => {
      const lab = labEnv();
      const authorizedFile = path.join(path.dirname(lab.key), "authorized_keys");
      const authorized = fs.readFileSync(authorizedFile, "utf8");
      const tmp = tempDir("rotate-");
      const [oldKey, newKey] = ["old", "new"].map((n) => {
        const f = path.join(tmp, `id_${n}`);
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `rotate-${n}`, "-f", f]);
        return f;
      });
      const authorize = (key: string) => fs.writeFileSync(authorizedFile, authorized + fs.readFileSync(`${key}.pub`, "utf8"));
      authorize(oldKey);
      const e = await userStack({ domain: "minimal", privateKeyPath: oldKey });
      try {
        const up = await e.stack.up();
        const uuid = virsh(["domuuid", `${e.prefix}-vm`]);
        authorize(newKey); // the old key is no longer accepted
        // refresh logs in with the recorded (old) key: refused, with what to do
        await assert.rejects(e.stack.refresh(), (err: Error) => {
          assert.match(err.message, /did not accept/);
          assert.match(err.message, /run `pulumi up` first/);
          return true;
        });
        await e.stack.setConfig("privateKeyPath", { value: newKey });
        const p = await e.stack.preview();
        assert.deepStrictEqual(only(p.changeSummary), { same: 1, update: 3 }, "credentials are not identity: the stack stays, no replace");
        const up2 = await e.stack.up();
        assert.strictEqual(up2.summary.result, "succeeded");
        assert.strictEqual(virsh(["domuuid", `${e.prefix}-vm`]), uuid, "the VM was not touched");
        assert.strictEqual(up2.outputs.imageSha256.value, up.outputs.imageSha256.value);
        await e.stack.destroy();
        assert.ok(!domainNames().includes(`${e.prefix}-vm`));
      } finally {
        // whatever key the stack recorded, its destroy can log in
        fs.writeFileSync(authorizedFile, authorized + fs.readFileSync(`${oldKey}.pub`, "utf8") + fs.readFileSync(`${newKey}.pub`, "utf8"));
        await finish(e);
        fs.writeFileSync(authorizedFile, authorized);
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });

    firstLeg("gives a VM with a pinned MAC, destroyed and created again, the lease of its new boot", async () => {
      const lab = labEnv();
      const mac = `52:54:00:${[(process.pid >> 8) & 255, process.pid & 255, 0x42].map((n) => n.toString(16).padStart(2, "0")).join(":")}`;
      const e = await userStack({ domain: "net", mac });
      try {
        const first = await e.stack.up();
        assert.match(first.outputs.ip.value, /^192\.168\.150\.\d+$/);
        await e.stack.destroy();
        const stale = leases(lab.network).find((l) => l.mac === mac);
        assert.ok(stale, "the old lease is still listed after destroy (what made waitForIp return at once)");
        await new Promise((r) => setTimeout(r, 1100)); // lease expiry has second resolution
        const second = await e.stack.up();
        const fresh = leases(lab.network).find((l) => l.mac === mac);
        assert.notStrictEqual(fresh?.expiry, stale.expiry, "up returned only after the new guest renewed its lease");
        assert.strictEqual(second.outputs.ip.value, fresh?.ip);
      } finally {
        await finish(e);
      }
    });

    firstLeg("fails up with the console's last lines of a VM whose kernel panics and of a VM on a network without DHCP; destroy removes both", async () => {
      const e = await userStack({ domain: "broken" });
      try {
        const started = Date.now();
        const failed: Error = await e.stack.up().then(
          () => assert.fail("up must fail"),
          (err: Error) => err,
        );
        const seconds = (Date.now() - started) / 1000;
        assert.match(failed.message, new RegExp(`domain ${e.prefix}-panic will get no ipv4 address: its kernel panicked \\(waitForIp\\)`));
        assert.match(failed.message, /the last \d+ lines of its console:\n(.*\n)*.* {2}\| .*Kernel panic - not syncing/);
        assert.match(failed.message, new RegExp(`domain ${e.prefix}-nodhcp got no ipv4 address within 20 s \\(waitForIp, source any\\); it is running`));
        // the no-DHCP VM's own console report: its lines (how far it got in 20 s depends on how busy
        // the machine is; none yet if qemu had not run it), never the panic's
        const nodhcp = failed.message.slice(failed.message.indexOf(`domain ${e.prefix}-nodhcp got no ipv4 address`)).split(`${e.prefix}-panic`)[0];
        assert.match(
          nodhcp,
          /the last \d+ lines of its console:\n.* {2}\| \S|its console printed nothing/,
          `the no-DHCP VM's own console report: ${failed.message}`,
        );
        assert.doesNotMatch(nodhcp, /Kernel panic/, "not the other VM's lines");
        assert.ok(seconds < 240, `the panic ended its 5 minute wait (${seconds.toFixed(0)} s)`);
        // the reasons (with the domain's state) go into the state as the engine records them; the console never does
        const state = JSON.stringify(await e.stack.exportStack());
        assert.match(state, /will get no ipv4 address: its kernel panicked \(waitForIp\) \(its console's last lines are printed above\)/);
        assert.ok(!/udhcpc|Kernel panic - not syncing/.test(state), "no console line in the state");
        // both VMs are kept and recorded: Pulumi tracks them, destroy removes them
        assert.ok(domainNames().includes(`${e.prefix}-panic`) && domainNames().includes(`${e.prefix}-nodhcp`));
      } finally {
        await finish(e);
      }
    });

    firstLeg("fails preview, before anything is made, when a name is already taken on the host", async () => {
      const lab = labEnv();
      const e = await userStack({ domain: "minimal" });
      const taken = `${e.prefix}-disk`;
      virsh(["vol-create-as", lab.pool, taken, "1M", "--format", "qcow2"]);
      const volumes = mine(volumeNames(lab));
      try {
        await assert.rejects(e.stack.preview(), (err: Error) => {
          assert.match(err.message, new RegExp(`volume "${taken}" in pool "${lab.pool}" already exists on root@127\\.0\\.0\\.1:${lab.port}`));
          assert.match(err.message, new RegExp(`virsh vol-delete --pool ${lab.pool} ${taken}`));
          return true;
        });
        assert.deepStrictEqual(mine(volumeNames(lab)), volumes, "preview made nothing");
      } finally {
        virsh(["vol-delete", "--pool", lab.pool, taken]);
        await finish(e);
      }
    });
  });
}
