// A distribution-style cloud image with the real cloud-init, through the real CLI: the
// lab's Debian 12 image (its own bootloader, Debian's cloud-init and qemu-guest-agent)
// boots under BIOS and UEFI side by side. The test logs into each guest with the key its
// user-data installed and reads what cloud-init did. Day 2: a vCPU, memory, a data disk and
// a NIC are added live and the disk and NIC removed again, all in the same boot; an edit of
// user-data restarts each VM once, cloud-init runs again, the identity and the UEFI NVRAM
// stay; destroy removes everything, NVRAM included.
// One leg: the guest, not the Node/SDK pair, is under test here.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { labEnv, quickstartLabConfig } from "../support/lab";
import { runCli } from "../support/cli";
import { installedCli, legEnv, legProject, programFiles, programIn, testLegs, programEnv } from "../support/package";
import { domainNames, mine, virsh, volumeNames } from "../support/virsh";
import { assertDomainXmlValid } from "../support/xml-schema";
import { tempDir } from "../support/tmp";

const leg = testLegs()[0];
const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));

describe(`e2e [${leg.name}]: a Debian cloud image with the real cloud-init, BIOS and UEFI`, function () {
  this.timeout(1_800_000);
  const tag = `ci${process.pid}`;
  const keyDir = tempDir("guest-key-");
  const key = path.join(keyDir, "id_ed25519");
  let e: E2eStack | undefined;
  /** docs/getting-started.md walked on the lab: the quickstart program with the cloud image, its boot beside the other two. */
  let started: E2eStack | undefined;
  let volumesBefore: string[];
  let domainsBefore: string[];

  /** A command in the guest, over SSH from the lab's namespace, as the default user "debian". */
  /**
   * Runs `command` in the guest over SSH. ssh's own failures (exit 255: no connection, a
   * handshake that timed out) are retried for a minute: an emulated guest on a busy machine
   * can be that slow to answer; the command's own failures are not.
   */
  function inGuest(ip: string, command: string): string {
    const args = ["netns", "exec", labEnv().netns, "ssh", "-q", "-i", key, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no"];
    args.push("-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20", `debian@${ip}`, command);
    for (const until = Date.now() + 60_000; ;) {
      try {
        return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 }).trim();
      } catch (err) {
        if ((err as { status?: number }).status !== 255 || Date.now() > until) throw err;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
      }
    }
  }
  /** Waits for the guest's sshd (cloud-init makes its host keys on first boot). */
  async function login(ip: string): Promise<void> {
    let last = "";
    for (const until = Date.now() + 300_000; Date.now() < until;) {
      try {
        inGuest(ip, "true");
        return;
      } catch (err) {
        last = String((err as { stderr?: string }).stderr ?? err);
      }
      await new Promise((r) => setTimeout(r, 3000));
    }
    throw new Error(`no SSH login to debian@${ip} with the user-data key within 5 min: ${last}`);
  }
  // the running definition: libvirt 9.0 picks the firmware and the NVRAM path at start
  const nvramOf = (vm: string) => /<nvram[^>]*>([^<]+)<\/nvram>/.exec(virsh(["dumpxml", vm]))?.[1];

  before(async () => {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e-guest", "-f", key]);
    volumesBefore = mine(volumeNames(labEnv()));
    domainsBefore = mine(domainNames());
    const dir = programIn(legProject(leg), "cloud", programFiles("cloud"));
    e = await e2eStack(
      dir,
      `cloud${tag}`,
      { prefix: tag, memory: "1024", maxMemory: "2048", maxVcpu: "2", publicKey: fs.readFileSync(`${key}.pub`, "utf8").trim() },
      programEnv(legProject(leg)),
    );
    // getting-started's steps, as its text gives them: the host, the image, the public key; memory and disk as the program's defaults
    const quickstart = programIn(legProject(leg), "getting-started", {
      "Pulumi.yaml": "Pulumi.yaml",
      "examples/quickstart/index.ts": "examples/quickstart/index.ts",
    });
    const { memory: _labMemory, ...host } = quickstartLabConfig();
    started = await e2eStack(
      quickstart,
      `gs${tag}`,
      {
        ...host,
        imagePath: labEnv().cloudImage,
        sshPublicKey: fs.readFileSync(`${key}.pub`, "utf8").trim(),
        prefix: `${tag}-gs`,
      },
      legEnv(legProject(leg)),
    );
  });
  after(async () => {
    for (const s of [e, started]) {
      if (!s) continue;
      await s.stack.destroy().catch(() => undefined);
      await s.remove();
    }
    fs.rmSync(keyDir, { recursive: true, force: true });
  });

  it("boots under both firmwares, runs user-data, vendor-data and network-config, and keeps the guest across an update; destroy leaves nothing; getting-started's steps give an SSH login", async () => {
    const stack = e!.stack;
    const startedAt = Date.now();
    // getting-started: preview, then up, booting beside the two VMs of the cloud program
    const gsPreview = await started!.stack.preview();
    assert.strictEqual(gsPreview.changeSummary.create, 4, "image, disk, VM, stack");
    const [up, gsUp] = await Promise.all([stack.up(), started!.stack.up()]);
    const upSeconds = (Date.now() - startedAt) / 1000;
    assert.strictEqual(gsUp.summary.result, "succeeded");
    const gsIp = gsUp.outputs.ip.value as string;
    assert.match(gsIp, /^192\.168\.150\.\d+$/, "pulumi stack output ip");
    assert.strictEqual(up.summary.result, "succeeded");
    const ips = up.outputs.ips.value as string[];
    const uuids = up.outputs.uuids.value as string[];
    const firmwares = ["bios", "uefi"] as const;
    const doneAt: Record<string, number> = {};
    const instanceIds: Record<string, string> = {};
    for (const [i, fw] of firmwares.entries()) {
      const vm = `${tag}-${fw}`;
      assert.match(ips[i], /^192\.168\.15[01]\.\d+$/, `${fw}: waitForIp (${i === 0 ? "lease" : "agent"}) gave an address`);
      assertDomainXmlValid(vm);
      await login(ips[i]);
      const status = inGuest(ips[i], "cloud-init status --wait --long");
      doneAt[fw] = (Date.now() - startedAt) / 1000;
      assert.match(status, /^status: done$/m, `${fw}: ${status}`);
      const result = JSON.parse(inGuest(ips[i], "sudo cat /var/lib/cloud/data/result.json")) as { v1: { errors: string[]; datasource: string } };
      assert.deepStrictEqual(result.v1.errors, [], `${fw}: cloud-init reported errors`);
      assert.match(result.v1.datasource, /NoCloud/);
      assert.strictEqual(inGuest(ips[i], "hostname"), `e2e-${fw}`);
      assert.strictEqual(inGuest(ips[i], "cat /etc/pulumi-kvm-e2e"), `written for ${fw}`);
      assert.strictEqual(inGuest(ips[i], "cat /var/lib/pulumi-kvm-runcmd"), "ran", "user-data's runcmd ran once");
      assert.strictEqual(inGuest(ips[i], "cat /var/lib/pulumi-kvm-vendor"), "vendor", "vendor-data's script ran");
      assert.match(
        inGuest(ips[i], "ip -4 -o addr show"),
        new RegExp(`inet 192\\.168\\.151\\.${21 + i}/24`),
        `${fw}: the static address of network-config on NIC 2`,
      );
      assert.match(inGuest(ips[i], "ip -4 -o addr show"), /inet 192\.168\.150\.\d+\/24/, `${fw}: a DHCP address on NIC 1`);
      assert.strictEqual(inGuest(ips[i], "test -d /sys/firmware/efi && echo uefi || echo bios"), fw, "booted by the firmware asked for");
      instanceIds[fw] = inGuest(ips[i], "cat /var/lib/cloud/data/instance-id");
    }
    // ssh debian@$(pulumi stack output ip): the key from sshPublicKey is the default user's
    await login(gsIp);
    assert.strictEqual(inGuest(gsIp, "hostname"), "quickstart");
    assert.match(virsh(["dominfo", `${tag}-gs-vm`]), /Max memory:\s+1048576 KiB/, "the quickstart's 1 GiB");
    const virtualSize = (file: string) => JSON.parse(execFileSync("qemu-img", ["info", "-U", "--output", "json", file], { encoding: "utf8" }))["virtual-size"];
    assert.strictEqual(virtualSize(path.join(labEnv().poolDir, `${tag}-gs-disk`)), virtualSize(labEnv().cloudImage), "the disk takes the image's size");
    await started!.stack.destroy();

    // the agent's view: the address waitForIp returned for the UEFI VM is one the agent reports
    assert.ok(virsh(["domifaddr", `${tag}-uefi`, "--source", "agent"]).includes(ips[1]), "the agent reports the UEFI VM's address");
    assert.match(
      virsh(["dumpxml", `${tag}-uefi`]),
      new RegExp(`<interface type='direct'>\\s*<mac address='52:54:00:c1:00:02'/>\\s*<source dev='${labEnv().directDev}' mode='bridge'/>`),
      "the UEFI VM's first NIC is macvtap",
    );
    console.log(
      `      boot times, both VMs at once (1 vCPU each, software emulation): up with both IPs ${upSeconds.toFixed(0)} s; cloud-init done: BIOS ${doneAt.bios.toFixed(0)} s, UEFI ${doneAt.uefi.toFixed(0)} s`,
    );

    // the UEFI VM as Windows 11 or measured boot needs it: Secure Boot with the distribution's
    // keys (Debian's shim boots), a TPM 2.0 swtpm emulates, and a watchdog an XML patch added
    const secureVm = `${tag}-secure`;
    const secureIp = up.outputs.secureIp.value as string;
    await login(secureIp);
    const live = virsh(["dumpxml", secureVm]);
    assert.match(live, /<type arch='x86_64' machine='pc-q35-[\d.]+'>hvm<\/type>/, "q35, the machine secureBoot needs");
    assert.match(live, /<loader [^>]*secure='yes'[^>]*>[^<]*OVMF_CODE_4M\.ms\.fd<\/loader>/, "the firmware with Secure Boot and enrolled keys");
    assert.match(live, /<tpm model='tpm-crb'>\s*<backend type='emulator' version='2\.0'/);
    assert.match(live, /<watchdog model='i6300esb' action='reset'/, "the XML patch's watchdog");
    const secureBootVar = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
    assert.strictEqual(inGuest(secureIp, `od -An -t u1 ${secureBootVar}`).split(/\s+/).pop(), "1", "the guest booted with Secure Boot on");
    assert.strictEqual(inGuest(secureIp, "cat /sys/class/tpm/tpm0/tpm_version_major"), "2", "the guest has a TPM 2.0");
    assert.strictEqual(inGuest(ips[0], "test -e /sys/class/tpm/tpm0 && echo tpm || echo none"), "none", "the BIOS VM has none");
    const tpmState = `/var/lib/libvirt/swtpm/${up.outputs.secureUuid.value as string}`;
    assert.ok(fs.existsSync(`${tpmState}/tpm2/tpm2-00.permall`), `swtpm keeps the TPM's state in ${tpmState}`);
    const tpmStateDir = fs.statSync(tpmState).ino;
    const tpmLog = `/var/log/swtpm/libvirt/qemu/${secureVm}-swtpm.log`;
    const secureNvram = nvramOf(secureVm);
    assert.ok(secureNvram && fs.existsSync(secureNvram), `the Secure Boot VM has its NVRAM, made from the enrolled template (${secureNvram})`);
    assert.ok(fs.existsSync(tpmLog), `swtpm logs to ${tpmLog}`);

    // UEFI: libvirt made the NVRAM; the first boot wrote its boot entries into it
    const nvram = nvramOf(`${tag}-uefi`);
    assert.ok(nvram && fs.existsSync(nvram), `the UEFI VM has an NVRAM file (${nvram})`);
    const inode = fs.statSync(nvram).ino;
    assert.strictEqual(nvramOf(`${tag}-bios`), undefined, "no NVRAM for BIOS");

    // day 2, live: a vCPU, memory, a data disk and a NIC more, then the disk and NIC gone again; the same boot throughout
    const bootIds = Object.fromEntries(firmwares.map((fw, i) => [fw, inGuest(ips[i], "cat /proc/sys/kernel/random/boot_id")]));
    const memTotal = (ip: string) => Number(/MemTotal:\s+(\d+) kB/.exec(inGuest(ip, "cat /proc/meminfo"))![1]);
    const before = Object.fromEntries(firmwares.map((fw, i) => [fw, memTotal(ips[i])]));
    await stack.setAllConfig({ vcpu: { value: "2" }, memory: { value: "1536" }, extras: { value: "true" } });
    const grown = await stack.up();
    // the secure VM (q35) takes its data disk live on a spare PCIe root port
    assert.deepStrictEqual(only(grown.summary.resourceChanges ?? {}), { same: 5, update: 3, create: 3 });
    assert.match(inGuest(secureIp, "lsblk -dn -o NAME,SIZE"), /^vdb\s+64M$/m, "secure: the data disk is there, attached live");
    assert.deepStrictEqual(grown.outputs.uuids.value, uuids, "updated in place");
    for (const [i, fw] of firmwares.entries()) {
      const ip = ips[i];
      assert.strictEqual(inGuest(ip, "cat /proc/sys/kernel/random/boot_id"), bootIds[fw], `${fw}: the same boot`);
      assert.strictEqual(inGuest(ip, "cat /sys/devices/system/cpu/present"), "0-1", `${fw}: the guest has the second vCPU`);
      // up returns once the agent has brought it online: no wait here
      assert.strictEqual(inGuest(ip, "nproc"), "2", `${fw}: the second vCPU is online`);
      for (let t = 0; t < 30 && memTotal(ip) < before[fw] + 400 * 1024; t++) await new Promise((r) => setTimeout(r, 2000));
      assert.ok(memTotal(ip) >= before[fw] + 400 * 1024, `${fw}: the balloon gave the guest about 512 MiB more (${before[fw]} → ${memTotal(ip)} kB)`);
      assert.match(inGuest(ip, "lsblk -dn -o NAME,SIZE"), /^vdb\s+64M$/m, `${fw}: the data disk is there`);
      assert.match(inGuest(ip, "ip -o link"), new RegExp(`52:54:00:c1:02:0${i + 1}`), `${fw}: the third NIC is there`);
      assert.strictEqual(inGuest(ip, "cat /var/lib/cloud/data/instance-id"), instanceIds[fw], `${fw}: the same instance`);
      assertDomainXmlValid(`${tag}-${fw}`);
    }
    await stack.setConfig("extras", { value: "false" });
    const shrunk = await stack.up();
    assert.deepStrictEqual(only(shrunk.summary.resourceChanges ?? {}), { same: 5, update: 3, delete: 3 });
    for (const [i, fw] of firmwares.entries()) {
      const ip = ips[i];
      assert.strictEqual(inGuest(ip, "cat /proc/sys/kernel/random/boot_id"), bootIds[fw], `${fw}: still the same boot`);
      assert.doesNotMatch(inGuest(ip, "lsblk -dn -o NAME"), /^vdb$/m, `${fw}: the data disk is gone`);
      assert.doesNotMatch(inGuest(ip, "ip -o link"), new RegExp(`52:54:00:c1:02:0${i + 1}`), `${fw}: the third NIC is gone`);
      assert.strictEqual(inGuest(ip, "cat /var/lib/pulumi-kvm-runcmd"), "ran", `${fw}: runcmd did not run again`);
    }
    assert.deepStrictEqual(only((await stack.preview()).changeSummary), { same: 8 }, "no diff after the live updates");

    // an edit of user-data: one restart, a new seed, cloud-init runs again; the same VMs, MACs and NVRAM
    const macsOf = (vm: string) => virsh(["domiflist", vm]).match(/([0-9a-f]{2}:){5}[0-9a-f]{2}/g);
    const macsBefore = firmwares.map((fw) => macsOf(`${tag}-${fw}`));
    await stack.setConfig("edit", { value: "edited" });
    const edited = await stack.up();
    assert.deepStrictEqual(only(edited.summary.resourceChanges ?? {}), { same: 5, update: 3 });
    assert.deepStrictEqual(edited.outputs.uuids.value, uuids, "the same VMs");
    for (const [i, fw] of firmwares.entries()) {
      const ip = (edited.outputs.ips.value as string[])[i];
      assert.deepStrictEqual(macsOf(`${tag}-${fw}`), macsBefore[i], `${fw}: the same NICs and MACs`);
      await login(ip);
      inGuest(ip, "cloud-init status --wait");
      assert.notStrictEqual(inGuest(ip, "cat /proc/sys/kernel/random/boot_id"), bootIds[fw], `${fw}: restarted`);
      assert.strictEqual(inGuest(ip, "cat /etc/pulumi-kvm-edit"), "edited", `${fw}: the edited user-data's file`);
      assert.notStrictEqual(inGuest(ip, "cat /var/lib/cloud/data/instance-id"), instanceIds[fw], `${fw}: a new instance-id`);
      assertDomainXmlValid(`${tag}-${fw}`);
    }
    assert.strictEqual(nvramOf(`${tag}-uefi`), nvram, "the same NVRAM path");
    assert.strictEqual(fs.statSync(tpmState).ino, tpmStateDir, "the restart kept the TPM's state");
    assert.ok(fs.existsSync(`${tpmState}/tpm2/tpm2-00.permall`));
    const secureAfter = edited.outputs.secureIp.value as string;
    await login(secureAfter);
    assert.strictEqual(inGuest(secureAfter, "cat /etc/pulumi-kvm-edit"), "edited", "secure: restarted with the edited user-data");
    assert.strictEqual(inGuest(secureAfter, "cat /sys/class/tpm/tpm0/tpm_version_major"), "2");
    assert.strictEqual(fs.statSync(nvram).ino, inode, "the NVRAM file was kept, not made again from the template");
    assert.deepStrictEqual(only((await stack.preview()).changeSummary), { same: 8 }, "no diff after the update");

    // a snapshot with memory before a risky change, and the way back; the lab's libvirt (9.0,
    // Debian 12) takes no internal snapshot of a UEFI VM, whose NVRAM is raw: refused, naming why
    const cli = { env: e!.env, installed: { node: legProject(leg).node, cli: installedCli(legProject(leg)) } };
    const onStack = ["--stack", stack.name, "--cwd", stack.workspace.workDir];
    await stack.setConfig("snapshot", { value: "both" });
    const both = await stack.up().then(
      () => assert.fail("the lab's libvirt took a snapshot of the UEFI VM"),
      (err: Error) => err,
    );
    assert.match(both.message, new RegExp(`libvirt cannot take snapshot "${tag}-uefi-before" of domain ${tag}-uefi: .*not of UEFI VMs`, "s"));
    await stack.setConfig("snapshot", { value: "bios" });
    const snapped = await stack.up();
    assert.strictEqual(snapped.summary.result, "succeeded");
    const bios = `${tag}-bios`;
    const listed = await runCli(["snapshot", "list", bios, ...onStack, "--json"], cli);
    assert.strictEqual(listed.code, 0, listed.stderr);
    assert.deepStrictEqual(
      JSON.parse(listed.stdout).map((x: any) => [x.name, x.state, x.memory, x.description]),
      [[`${bios}-before`, "running", true, "before a risky change"]],
    );
    // the risky change: memory 1536 → 1024 MiB, applied live; the revert brings the snapshot's back
    await stack.setConfig("memory", { value: "1024" });
    const risky = await stack.up();
    assert.strictEqual(risky.summary.resourceChanges?.update, 2, "both VMs' memory changed live");
    inGuest(ips[0], "echo risky | sudo tee /var/tmp/after-snapshot >/dev/null && sync");
    const reverted = await runCli(["snapshot", "revert", bios, `${bios}-before`, ...onStack], cli);
    assert.strictEqual(reverted.code, 0, reverted.stderr);
    assert.match(
      reverted.stdout,
      new RegExp(`domain ${bios} on root@127\\.0\\.0\\.1:\\d+ reverted to snapshot ${bios}-before; it is running \\(from snapshot\\)`),
    );
    await login(ips[0]);
    assert.strictEqual(inGuest(ips[0], "test -e /var/tmp/after-snapshot && echo there || echo gone"), "gone", "the file written after the snapshot is gone");
    const refreshed = await stack.refresh();
    assert.strictEqual(refreshed.summary.result, "succeeded");
    assert.strictEqual(refreshed.summary.resourceChanges?.update, 1, "refresh shows what the revert changed: the BIOS VM only");
    const biosState = (await stack.exportStack()).deployment.resources.find((r: any) => r.type.endsWith("kvm:Domain") && r.outputs?.name === bios);
    assert.strictEqual(biosState?.outputs.memory, 1536, "the BIOS VM's recorded memory is the snapshot's again");
    const health = await runCli(["health", ...onStack, "--json"], cli);
    assert.deepStrictEqual(
      JSON.parse(health.stdout)
        .resources.filter((r: any) => r.kind === "Snapshot")
        .map((r: any) => [r.name, r.status]),
      [[`${bios}-before`, "ok"]],
    );
    const missing = await runCli(["snapshot", "revert", bios, "no-such-snapshot", ...onStack], cli);
    assert.deepStrictEqual([missing.code, missing.stderr.trim()], [1, `pulumi-kvm snapshot revert: domain ${bios} has no snapshot "no-such-snapshot"`]);

    // destroy removes the snapshot before its domain (the Snapshot depends on the Domain's name)
    await stack.destroy();
    assert.ok(!fs.existsSync(nvram), "destroy removed the NVRAM");
    assert.ok(!fs.existsSync(tpmState), "destroy removed the TPM's state");
    assert.ok(!fs.existsSync(secureNvram), "and the Secure Boot VM's NVRAM");
    assert.ok(!fs.existsSync(tpmLog), "and swtpm's log, which libvirt leaves");
    assert.ok(!virsh(["pool-list", "--all", "--name"]).includes("pulumi-kvm-tpm-log"), "the transient pool that reached the log is gone");
    assert.deepStrictEqual(mine(domainNames()), domainsBefore, "no domain left");
    assert.deepStrictEqual(mine(volumeNames(labEnv())), volumesBefore, "no volume left (images, overlays, seeds)");
  });
});
