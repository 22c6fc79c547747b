// The Domain resource against the lab: real guests under qemu emulation.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { execFileSync } from "child_process";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { checked } from "../support/checked";
import { setLogSink } from "../../provider/log";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { domainNames, leases, mine, virsh, volumeNames, withForeignDomain } from "../support/virsh";
import { diskOf } from "../support/disks";
import { tempDir } from "../support/tmp";

describe("Domain", function () {
  this.timeout(300_000);
  const tag = `dm${process.pid}`;
  let image: ImageOutputs;
  const volumes: VolumeOutputs[] = [];
  const domains: DomainOutputs[] = [];
  let volumesBefore: string[];

  const disk = async (name: string): Promise<VolumeOutputs> => {
    const { outs } = await volumeProvider.create(
      await checked(volumeProvider, { host: labHost(labEnv()), name, baseImage: image.name, sourceFormat: image.format } as VolumeInputs),
    );
    volumes.push(outs);
    return outs;
  };
  const domain = async (news: Partial<DomainInputs>): Promise<DomainOutputs> => {
    const { outs } = await domainProvider.create(
      await checked(domainProvider, { host: labHost(labEnv()), type: "qemu", memory: "256MiB", shutdownTimeout: "20s", ...news } as DomainInputs),
    );
    domains.push(outs);
    return outs;
  };

  before(async () => {
    const lab = labEnv();
    volumesBefore = mine(volumeNames(lab));
    const inputs = await checked(imageProvider, { host: labHost(lab), name: `${tag}-base.qcow2`, source: { path: lab.image } } as ImageInputs);
    image = (await imageProvider.create(inputs)).outs;
  });

  after(async () => {
    for (const d of domains) await domainProvider.delete(d.uuid, d).catch(() => undefined);
    for (const v of volumes) await volumeProvider.delete(v.key, v).catch(() => undefined);
    if (image) await imageProvider.delete(image.key, image).catch(() => undefined);
  });

  let web: DomainOutputs;
  /** A program's inputs from a record: without the ceilings libvirt reports (a program that gives none lets them follow). */
  const asked = ({ maxVcpu: _maxVcpu, maxMemory: _maxMemory, ...inputs }: DomainOutputs) => inputs as DomainOutputs;

  it("boots an overlay of the lab image with a cloud-init hostname, outputs its IP, and the lease carries the hostname", async () => {
    const lab = labEnv();
    const hostname = `${tag}-web`;
    const vol = await disk(`${tag}-web.qcow2`);
    web = await domain({
      name: `${tag}-web`,
      disks: [diskOf(vol)],
      networkInterfaces: [{ network: lab.network }],
      cloudInit: { hostname, userData: "#cloud-config\n" },
      waitForIp: { timeout: "120s", source: "lease" },
    });
    assert.match(web.ipAddress ?? "", /^192\.168\.150\.\d+$/);
    assert.strictEqual(web.state, "running");
    assert.strictEqual(web.interfaces.length, 1);
    assert.match(web.interfaces[0].mac, /^52:54:00:/);
    const lease = leases(lab.network).find((l) => l.ip === web.ipAddress);
    assert.strictEqual(lease?.hostname, hostname, "the guest read local-hostname from the seed ISO");
    assert.ok(volumeNames(lab).includes(`${tag}-web-seed.iso`));
    assert.match(virsh(["dumpxml", web.name]), /<pulumikvm:owner|xmlns:pulumikvm/);
    // the backing chain is spelt out: the overlay's base is the Image, and the chain ends there
    const inactive = virsh(["dumpxml", "--inactive", web.name]);
    const esc = image.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    assert.match(inactive, new RegExp(`<backingStore type=.file.>\\s*<format type=.qcow2./>\\s*<source file=.${esc}./>\\s*<backingStore/>\\s*</backingStore>`));
  });

  it("grows the disk of the running VM through its qemu (which holds the file's lock), and the guest's disk is that size at once", async () => {
    const vol = volumes.find((v) => v.name === `${tag}-web.qcow2`)!;
    const want = vol.capacityBytes + 64 * 1024 * 1024;
    const news = await checked(volumeProvider, { ...vol, capacity: want }, vol);
    const { outs } = await volumeProvider.update(vol.key, vol, news);
    volumes[volumes.indexOf(vol)] = outs;
    assert.strictEqual(outs.capacityBytes, want);
    const info = virsh(["domblkinfo", web.name, vol.path]);
    assert.match(info, new RegExp(`Capacity:\\s+${want}\\b`), "qemu sees the new size while the VM runs");
    assert.strictEqual(virsh(["domstate", web.name]), "running");
  });

  it("shows no change when nothing changed", async () => {
    const news = await checked(domainProvider, { ...web, memory: "256MiB" }, web);
    assert.deepStrictEqual(await domainProvider.diff(web.uuid, web, news), { changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("updates vcpu and memory in place, keeping the UUID and the MACs, and waits for the guest to come back", async () => {
    const lab = labEnv();
    const leaseOf = () => leases(lab.network).find((l) => l.mac === web.interfaces[0].mac);
    const before = leaseOf();
    assert.ok(before);
    await new Promise((r) => setTimeout(r, 1100)); // lease expiry has second resolution
    const news = await checked(domainProvider, { ...asked(web), vcpu: 2, memory: "320MiB" }, web);
    const d = await domainProvider.diff(web.uuid, web, news);
    assert.deepStrictEqual([d.changes, d.replaces], [true, []]);
    const { outs } = await domainProvider.update(web.uuid, web, news);
    assert.strictEqual(outs.uuid, web.uuid);
    assert.deepStrictEqual(
      outs.interfaces.map((i) => i.mac),
      web.interfaces.map((i) => i.mac),
    );
    assert.strictEqual(outs.vcpu, 2);
    assert.strictEqual(outs.memory, 320);
    assert.strictEqual(outs.state, "running");
    assert.match(virsh(["dominfo", web.name]), /CPU\(s\):\s+2/);
    assert.notStrictEqual(leaseOf()?.expiry, before.expiry, "waitForIp waited for the restarted guest's new lease, not the old one");
    web = outs;
  });

  it("applies vcpu and memory within maxVcpu and maxMemory to the running VM: the same qemu, live and persistent definitions agree", async () => {
    // raising the ceilings is a restart (a new qemu), and says so
    const ceilings = await checked(domainProvider, { ...web, maxVcpu: 3, maxMemory: "512MiB" }, web);
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    try {
      web = (await domainProvider.update(web.uuid, web, ceilings)).outs;
      assert.ok(
        lines.some((l) => /restarted for: maxVcpu, maxMemory/.test(l)),
        lines.join("\n"),
      );
      const id = virsh(["domid", web.name]);
      lines.length = 0;
      const news = await checked(domainProvider, { ...web, vcpu: 3, memory: "400MiB" }, web);
      const { outs } = await domainProvider.update(web.uuid, web, news);
      assert.ok(lines.some((l) => /applied live: vcpu, memory/.test(l)) && !lines.some((l) => /restarted/.test(l)), lines.join("\n"));
      assert.strictEqual(virsh(["domid", web.name]), id, "the same qemu runs: nothing restarted");
      assert.deepStrictEqual([outs.vcpu, outs.memory, outs.maxVcpu, outs.maxMemory], [3, 400, 3, 512]);
      assert.strictEqual(virsh(["vcpucount", web.name, "--live", "--active"]), "3");
      assert.strictEqual(virsh(["vcpucount", web.name, "--config", "--active"]), "3");
      assert.match(virsh(["dumpxml", "--inactive", web.name]), /<currentMemory unit='KiB'>409600<\/currentMemory>/);
      // the running VM's balloon reaches it as the guest gives the memory back
      for (let t = 0; t < 60 && !/<currentMemory unit='KiB'>409600<\/currentMemory>/.test(virsh(["dumpxml", web.name])); t++)
        await new Promise((r) => setTimeout(r, 500));
      assert.match(virsh(["dumpxml", web.name]), /<currentMemory unit='KiB'>409600<\/currentMemory>/);
      web = outs;
      // a second look sees no change: what libvirt reports is what was asked
      const again = await checked(domainProvider, { ...web }, web);
      assert.strictEqual((await domainProvider.diff(web.uuid, (await domainProvider.read(web.uuid, web)).props, again)).changes, false);
    } finally {
      setLogSink(undefined);
    }
  });

  it("attaches a data disk and a second NIC to the running VM, and detaches them again: the same qemu, live and persistent definitions agree", async () => {
    const lab = labEnv();
    const id = virsh(["domid", web.name]);
    const data = await disk(`${tag}-hot.qcow2`);
    const pinned = "52:54:00:5e:00:42";
    const added = await checked(
      domainProvider,
      { ...web, disks: [...web.disks, diskOf(data)], networkInterfaces: [...(web.networkInterfaces ?? []), { network: lab.network, mac: pinned }] },
      web,
    );
    assert.deepStrictEqual((await domainProvider.diff(web.uuid, web, added)).replaces, []);
    const plugged = (await domainProvider.update(web.uuid, web, added)).outs;
    assert.strictEqual(virsh(["domid", web.name]), id, "nothing restarted");
    for (const flags of [[], ["--inactive"]]) {
      const x = virsh(["dumpxml", ...flags, web.name]);
      assert.ok(x.includes(data.path), `the data disk is in the ${flags.length ? "persistent" : "live"} definition`);
      assert.ok(x.includes(pinned), `the NIC is in the ${flags.length ? "persistent" : "live"} definition`);
    }
    assert.deepStrictEqual(
      plugged.interfaces.map((i) => i.mac),
      [web.interfaces[0].mac, pinned],
    );
    const removed = await checked(domainProvider, { ...plugged, disks: web.disks, networkInterfaces: web.networkInterfaces }, plugged);
    web = (await domainProvider.update(web.uuid, plugged, removed)).outs;
    assert.strictEqual(virsh(["domid", web.name]), id, "nothing restarted");
    for (const flags of [[], ["--inactive"]]) {
      const x = virsh(["dumpxml", ...flags, web.name]);
      assert.ok(!x.includes(data.path) && !x.includes(pinned), `both are gone from the ${flags.length ? "persistent" : "live"} definition`);
    }
    assert.strictEqual(web.interfaces.length, 1);
  });

  it("fails a detach the guest does not acknowledge (a paused VM), naming the domain, with its definition unchanged; the next update finishes it", async () => {
    const lab = labEnv();
    const pinned = "52:54:00:5e:00:43";
    const withNic = await checked(
      domainProvider,
      { ...web, networkInterfaces: [...(web.networkInterfaces ?? []), { network: lab.network, mac: pinned }] },
      web,
    );
    const plugged = (await domainProvider.update(web.uuid, web, withNic)).outs;
    const without = await checked(domainProvider, { ...plugged, networkInterfaces: web.networkInterfaces }, plugged);
    virsh(["suspend", web.name]);
    process.env.PULUMI_KVM_DETACH_TIMEOUT = "4";
    try {
      await assert.rejects(domainProvider.update(web.uuid, plugged, without), (err: Error) => {
        assert.match(
          err.message,
          new RegExp(
            `domain ${web.name}: the guest did not release interface ${pinned} within 4 s \\(PULUMI_KVM_DETACH_TIMEOUT\\); its definition is unchanged`,
          ),
        );
        return true;
      });
      assert.ok(virsh(["dumpxml", "--inactive", web.name]).includes(pinned), "the definition still has the NIC");
    } finally {
      delete process.env.PULUMI_KVM_DETACH_TIMEOUT;
      virsh(["resume", web.name]);
    }
    // the resumed guest lets go of the NIC it was asked to release; the next update takes it out of the definition too
    web = (await domainProvider.update(web.uuid, plugged, without)).outs;
    for (const flags of [[], ["--inactive"]]) assert.ok(!virsh(["dumpxml", ...flags, web.name]).includes(pinned));
  });

  it("with restartPolicy never, check refuses a change that needs a restart, naming it, and lets a live one through", async () => {
    const restart = await domainProvider.check(web, { ...web, restartPolicy: "never", maxVcpu: 4 });
    assert.deepStrictEqual(
      restart.failures.map((f) => f.property),
      ["maxVcpu"],
    );
    assert.match(restart.failures[0].reason, /maxVcpu cannot change without restarting domain .*restartPolicy is "never"/);
    const live = await domainProvider.check(web, { ...web, restartPolicy: "never", vcpu: 2 });
    assert.deepStrictEqual(live.failures, []);
  });

  it("writes an edited cloud-init as a new seed and restarts the VM: the guest reads the new data, UUID and MAC stay, the old seed goes", async () => {
    const lab = labEnv();
    const hostname = `${tag}-web2`;
    const mac = web.interfaces[0].mac;
    const news = await checked(domainProvider, { ...web, cloudInit: { hostname, userData: "#cloud-config\n" } }, web);
    assert.deepStrictEqual((await domainProvider.diff(web.uuid, web, news)).replaces, [], "an edit is no replacement");
    const { outs } = await domainProvider.update(web.uuid, web, news);
    assert.strictEqual(outs.uuid, web.uuid);
    assert.strictEqual(outs.interfaces[0].mac, mac);
    assert.notStrictEqual(outs.seedVolume, web.seedVolume);
    const vols = mine(volumeNames(lab));
    assert.ok(vols.includes(outs.seedVolume!) && !vols.includes(web.seedVolume!), `new seed in, old seed out: ${vols.join(", ")}`);
    assert.ok(virsh(["dumpxml", "--inactive", web.name]).includes(`/${outs.seedVolume}`));
    const lease = leases(lab.network).find((l) => l.mac === mac);
    assert.strictEqual(lease?.hostname, hostname, "the restarted guest read the new seed");
    // the cleanup deletes what the record now names
    domains[domains.findIndex((d) => d.uuid === web.uuid)] = outs;
    web = outs;
  });

  it("restores and restarts the previous definition when the new one does not start", async () => {
    const lab = labEnv();
    const leaseOf = () => leases(lab.network).find((l) => l.mac === web.interfaces[0].mac);
    const before = leaseOf();
    const uuid = virsh(["domuuid", web.name]);
    const news = await checked(domainProvider, { ...web, kernel: `/nonexistent/${tag}/vmlinuz` }, web);
    await assert.rejects(domainProvider.update(web.uuid, web, news), (err: Error) => {
      assert.match(err.message, /did not start .*the previous definition was restored and runs again/s);
      return true;
    });
    assert.strictEqual(virsh(["domstate", web.name]), "running");
    assert.strictEqual(virsh(["domuuid", web.name]), uuid);
    assert.doesNotMatch(virsh(["dumpxml", "--inactive", web.name]), /<kernel>/, "the persistent definition is the previous one");
    // the restarted guest is back once it renewed its lease (the next test shuts it down on ACPI)
    for (let i = 0; i < 120 && leaseOf()?.expiry === before?.expiry; i++) await new Promise((r) => setTimeout(r, 500));
    assert.notStrictEqual(leaseOf()?.expiry, before?.expiry, "the previous definition booted again");
  });

  it("gives disks a boot order, cache, discard, serial and read-only, and changes them in place", async () => {
    const lab = labEnv();
    const os = await disk(`${tag}-opts.qcow2`);
    const data = (
      await volumeProvider.create(await checked(volumeProvider, { host: labHost(lab), name: `${tag}-opts-data.qcow2`, capacity: "16MiB" } as VolumeInputs))
    ).outs;
    volumes.push(data);
    const vm = await domain({
      name: `${tag}-opts`,
      running: false,
      disks: [
        { ...diskOf(os), bootOrder: 2, cache: "none", discard: "unmap", serial: "os-1" },
        { ...diskOf(data), bootOrder: 1, readonly: true, serial: "data-1" },
      ],
    });
    const disks = () => [...virsh(["dumpxml", "--inactive", vm.name]).matchAll(/<disk [\s\S]*?<\/disk>/g)].map((m) => m[0]);
    const [first, second] = disks();
    assert.match(first, /<driver name='qemu' type='qcow2' cache='none' discard='unmap'\/>/);
    assert.match(first, /<serial>os-1<\/serial>/);
    assert.match(first, /<boot order='2'\/>/);
    assert.doesNotMatch(first, /<readonly\/>/);
    assert.match(second, /<readonly\/>[\s\S]*<serial>data-1<\/serial>[\s\S]*<boot order='1'\/>/);
    const news = await checked(domainProvider, { ...vm, disks: [{ ...diskOf(os), cache: "writeback" }, diskOf(data)] }, vm);
    assert.deepStrictEqual(await domainProvider.diff(vm.uuid, vm, news), { changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs } = await domainProvider.update(vm.uuid, vm, news);
    domains[domains.indexOf(vm)] = outs;
    assert.strictEqual(outs.uuid, vm.uuid, "updated in place");
    const [os2, data2] = disks();
    assert.match(os2, /cache='writeback'/);
    assert.doesNotMatch(os2, /discard=|<serial>/);
    assert.match(os2, /<boot order='1'\/>/, "without a boot order the first disk boots");
    assert.doesNotMatch(data2, /<readonly\/>|<boot /);
  });

  it("stops the domain with running: false and starts it with true", async () => {
    const stop = await checked(domainProvider, { ...web, running: false, waitForIp: undefined }, web);
    const started = Date.now();
    const stopped = (await domainProvider.update(web.uuid, web, stop)).outs;
    assert.ok(Date.now() - started < 15_000, "the guest shut down on ACPI, not by destroy after shutdownTimeout");
    assert.strictEqual(stopped.running, false);
    assert.strictEqual(virsh(["domstate", web.name]), "shut off");
    const start = await checked(domainProvider, { ...stopped, running: true }, stopped);
    web = (await domainProvider.update(web.uuid, stopped, start)).outs;
    assert.strictEqual(web.running, true);
    assert.strictEqual(virsh(["domstate", web.name]), "running");
  });

  it("sees an out-of-band virsh destroy on read (drift for pulumi refresh)", async () => {
    virsh(["destroy", web.name]);
    const { id, props } = await domainProvider.read(web.uuid, web);
    assert.strictEqual(id, web.uuid);
    assert.strictEqual(props.running, false);
    assert.strictEqual(props.state, "shutoff");
    const news = await checked(domainProvider, { ...web, running: true }, web);
    assert.strictEqual((await domainProvider.diff(id, props, news)).changes, true, "the next up starts it again");
  });

  it("boots a kernel directly", async () => {
    const lab = labEnv();
    const vol = await disk(`${tag}-direct.qcow2`);
    const d = await domain({
      name: `${tag}-direct`,
      disks: [diskOf(vol)],
      kernel: lab.kernel,
      initrd: lab.initrd,
      cmdline: "console=ttyS0",
      networkInterfaces: [{ network: lab.network }],
      cloudInit: { hostname: `${tag}-direct` },
      waitForIp: { timeout: "120s" },
    });
    assert.match(d.ipAddress ?? "", /^192\.168\.150\.\d+$/);
    assert.match(virsh(["dumpxml", d.name]), new RegExp(`<kernel>${lab.kernel}</kernel>`));
  });

  it("keeps a domain that got no IP and reports it as created but failed to initialize", async () => {
    const lab = labEnv();
    const vol = await disk(`${tag}-nodhcp.qcow2`);
    const inputs = await checked(domainProvider, {
      host: labHost(lab),
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "20s",
      name: `${tag}-nodhcp`,
      disks: [diskOf(vol)],
      networkInterfaces: [{ network: lab.networkNoDhcp }],
      waitForIp: { timeout: "15s", source: "lease" },
    });
    let err: any;
    try {
      await domainProvider.create(inputs);
    } catch (e) {
      err = e;
    }
    assert.ok(err, "create must fail");
    assert.match(err.message, /no ipv4 address within 15 s \(waitForIp, source lease\); it is running\n/);
    // the console from its first byte (the firmware) to the guest's own lines, quoted in the error
    const quoted = /the last (\d+) lines of its console:\n((?: {2}\| .*\n?)+)$/.exec(err.message);
    assert.ok(quoted, err.message);
    assert.ok(Number(quoted[1]) <= 25 && Number(quoted[1]) > 3, err.message);
    assert.match(quoted[2], /\S/);
    assert.ok(err.id && err.properties && Array.isArray(err.reasons), "id, properties and reasons for Pulumi");
    assert.strictEqual(err.properties.uuid, err.id);
    assert.ok(domainNames().includes(`${tag}-nodhcp`), "the domain is kept, not leaked");
    domains.push(err.properties);
  });

  it("fails a create whose kernel panics at once, quoting the panic from the console", async () => {
    const lab = labEnv();
    const vol = await disk(`${tag}-panic.qcow2`);
    const inputs = await checked(domainProvider, {
      host: labHost(lab),
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "5s",
      name: `${tag}-panic`,
      disks: [diskOf(vol)],
      kernel: lab.kernel,
      initrd: lab.initrd,
      cmdline: "console=ttyS0 rdinit=/no-such-init root=/dev/no-such-disk",
      networkInterfaces: [{ network: lab.network }],
      waitForIp: { timeout: "5m", source: "lease" },
    });
    const started = Date.now();
    const err: any = await domainProvider.create(inputs).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err, "create must fail");
    domains.push(err.properties);
    assert.match(err.message, new RegExp(`domain ${tag}-panic will get no ipv4 address: its kernel panicked \\(waitForIp\\)`));
    assert.match(err.message, /\n {2}\| .*Kernel panic - not syncing/);
    assert.ok(Date.now() - started < 120_000, "the wait ends at the panic, not at its 5 minute timeout");
    assert.strictEqual(err.properties.state, "running", "the VM is kept and recorded (created but failed to initialize)");
  });

  it("reports an update whose waitForIp finds no address as not done, keeping the domain", async () => {
    const nodhcp = domains.find((d) => d.name === `${tag}-nodhcp`)!;
    const news = await checked(domainProvider, { ...asked(nodhcp), vcpu: 2, waitForIp: { timeout: "10s", source: "lease" } }, nodhcp);
    let err: any;
    try {
      await domainProvider.update(nodhcp.uuid, nodhcp, news);
    } catch (e) {
      err = e;
    }
    assert.ok(err, "the update must not report success without the address it was asked to wait for");
    assert.match(err.message, /no ipv4 address within 10 s/);
    assert.strictEqual(err.id, nodhcp.uuid, "Pulumi keeps tracking the domain");
    assert.strictEqual(err.properties.vcpu, 2, "the new definition is recorded");
    assert.ok(domainNames().includes(nodhcp.name));
  });

  it("refuses to delete an Image that a domain uses directly as its disk, naming the domain", async () => {
    const lab = labEnv();
    const inputs = await checked(imageProvider, { host: labHost(lab), name: `${tag}-direct-img.qcow2`, source: { path: lab.image } } as ImageInputs);
    const img = (await imageProvider.create(inputs)).outs;
    const vm = await domain({ name: `${tag}-on-image`, disks: [diskOf(img)], running: false });
    try {
      await assert.rejects(imageProvider.delete(img.key, img), new RegExp(`image default/${img.name} is a disk of domain ${vm.name}`));
      assert.ok(volumeNames(lab).includes(img.name));
    } finally {
      await domainProvider.delete(vm.uuid, vm);
      await imageProvider.delete(img.key, img);
    }
  });

  it("deletes the seed volume from the pool recorded at create, after disk 0 moved to another pool", async () => {
    const lab = labEnv();
    const seed = web.seedVolume!;
    assert.ok(volumeNames(lab).includes(seed));
    assert.strictEqual(web.seedPool, lab.pool);
    const moved = { ...web, disks: [{ ...web.disks[0], pool: `${tag}-elsewhere` }] };
    await domainProvider.delete(web.uuid, moved);
    assert.ok(!volumeNames(lab).includes(seed), "the seed volume is not leaked");
    assert.ok(!domainNames().includes(web.name));
  });

  it("keeps a raw disk raw, with no backing chain, after the guest wrote a qcow2 header naming a host file into it", async () => {
    const lab = labEnv();
    const raw = (
      await volumeProvider.create(
        await checked(volumeProvider, { host: labHost(lab), name: `${tag}-raw.img`, capacity: "64MiB", format: "raw" } as VolumeInputs),
      )
    ).outs;
    volumes.push(raw);
    const vm = await domain({ name: `${tag}-rawdisk`, disks: [{ volume: raw.name, format: raw.format }], running: false });
    // what a guest can do to its own disk: write a qcow2 header that names /etc/shadow
    const dir = tempDir("hostile-");
    const header = path.join(dir, "header.qcow2");
    execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-u", "-b", "/etc/shadow", "-F", "raw", header, "64M"]);
    virsh(["vol-upload", "--pool", lab.pool, raw.name, header]);
    virsh(["pool-refresh", lab.pool]);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.match(virsh(["vol-dumpxml", "--pool", lab.pool, raw.name]), /<format type='qcow2'\/>/, "libvirt now probes the raw volume as qcow2");
    assert.strictEqual((await volumeProvider.read(raw.key, raw)).props.format, "raw", "refresh keeps the recorded format");
    const news = await checked(domainProvider, { ...asked(vm), vcpu: 2 }, vm);
    const { outs } = await domainProvider.update(vm.uuid, vm, news);
    domains.push(outs);
    const inactive = virsh(["dumpxml", "--inactive", vm.name]);
    assert.match(inactive, /<driver name=.qemu. type=.raw.\/>/, "the redefinition attaches the disk as recorded, raw");
    assert.doesNotMatch(inactive, /shadow/);
    assert.match(inactive, /<backingStore\/>/);
  });

  it("builds and uploads the seed from memory: a TMPDIR that cannot be written does not matter", async () => {
    const lab = labEnv();
    const vol = await disk(`${tag}-mem.qcow2`);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = "/nonexistent/tmp";
    let vm: DomainOutputs;
    try {
      vm = await domain({ name: `${tag}-mem`, disks: [diskOf(vol)], cloudInit: { hostname: `${tag}-mem`, userData: "#cloud-config\n" }, running: false });
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    assert.ok(volumeNames(lab).includes(`${tag}-mem-seed.iso`));
    await domainProvider.delete(vm.uuid, vm);
    assert.ok(!volumeNames(lab).includes(`${tag}-mem-seed.iso`));
  });

  it("drops a domain undefined out of band on read, saying that its seed stays and how to remove it", async () => {
    const lab = labEnv();
    const vol = await disk(`${tag}-gone.qcow2`);
    const vm = await domain({ name: `${tag}-gone`, disks: [diskOf(vol)], cloudInit: { hostname: `${tag}-gone` }, running: false });
    virsh(["undefine", vm.name]);
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    try {
      const { id } = await domainProvider.read(vm.uuid, vm);
      assert.strictEqual(id, "", "gone: refresh drops it");
    } finally {
      setLogSink(undefined);
    }
    const seed = `${vm.seedPool}/${vm.seedVolume}`;
    assert.ok(
      lines.some(
        (l) =>
          l.includes(`domain ${vm.name} is gone from the host; its cloud-init seed volume ${seed}`) &&
          l.includes(`virsh vol-delete --pool ${vm.seedPool} ${vm.seedVolume}`),
      ),
      lines.join("\n"),
    );
    assert.ok(volumeNames(lab).includes(vm.seedVolume!), "a read changes nothing on the host");
    virsh(["vol-delete", "--pool", vm.seedPool!, vm.seedVolume!]);
    // read again with the seed gone too: nothing to say
    setLogSink((l) => lines.push(l));
    lines.length = 0;
    try {
      assert.strictEqual((await domainProvider.read(vm.uuid, vm)).id, "");
    } finally {
      setLogSink(undefined);
    }
    assert.ok(!lines.some((l) => l.includes("seed volume")), lines.join("\n"));
  });

  it("refuses to delete or update a domain it did not create", async () => {
    const name = `${tag}-foreign`;
    await withForeignDomain(name, async (uuid) => {
      const fake = { ...web, uuid, name };
      await assert.rejects(domainProvider.delete(uuid, fake), /not created by pulumi-kvm \(no ownership marker.*refusing to delete/s);
      await assert.rejects(domainProvider.update(uuid, fake, { ...fake, vcpu: 3 }), /refusing to update/);
      assert.ok(domainNames().includes(name));
    });
  });

  it("deletes gracefully and leaves no domain, seed volume or nvram behind", async () => {
    const lab = labEnv();
    for (const d of domains.splice(0)) {
      await domainProvider.delete(d.uuid, d);
      await domainProvider.delete(d.uuid, d); // already gone = success
    }
    for (const v of volumes.splice(0)) await volumeProvider.delete(v.key, v);
    await imageProvider.delete(image.key, image);
    assert.ok(!domainNames().some((n) => n.startsWith(tag)));
    assert.deepStrictEqual(mine(volumeNames(lab)), volumesBefore);
    assert.deepStrictEqual(
      fs.readdirSync("/var/lib/libvirt/qemu/nvram").filter((f) => f.startsWith(tag)),
      [],
    );
  });
});
