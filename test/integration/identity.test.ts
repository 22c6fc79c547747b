// Objects are known by identity, not by name, against the lab. For every kind: the stack
// makes an object, someone else removes it and makes another under the same name; then
// read reports the resource gone, update refuses, delete leaves the other object alone
// and says so, and check reports the name as taken. And a create killed with SIGKILL:
// its leftover is removed by the next operation only while it proves to be the one made.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { spawn } from "child_process";
import { setLogSink } from "../../provider/log";
import { domainProvider } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs } from "../../provider/kinds/image/lifecycle";
import { networkProvider, NetworkInputs } from "../../provider/kinds/network/lifecycle";
import { clearLeftovers } from "../../provider/resources/rollback";
import { storagePoolProvider } from "../../provider/kinds/storage-pool/lifecycle";
import { volumeProvider, VolumeInputs } from "../../provider/kinds/volume/lifecycle";
import { hostPool } from "../../provider/pool/host-pool";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { domainNames, mine, networkNames, poolNames, removeNetwork, virsh, volumeNames } from "../support/virsh";
import { unroutedSubnet } from "../support/subnet";
import { tempDir } from "../support/tmp";

interface Provider {
  check(olds: any, news: any): Promise<{ inputs: any; failures: { property: string; reason: string }[] }>;
  create(inputs: any): Promise<{ id: string; outs: any }>;
  read(id: string, props: any): Promise<{ id: string; props: any }>;
  update?(id: string, olds: any, news: any): Promise<unknown>;
  delete(id: string, props: any): Promise<void>;
}

interface Case {
  kind: string;
  provider: Provider;
  inputs: () => Record<string, unknown>;
  /** Removes the stack's object and makes another of that name, as someone else would with virsh. */
  remake: (outs: any) => void;
  exists: (outs: any) => boolean;
  /** Removes the other object at the end. */
  cleanup: (outs: any) => void;
  /** Inputs of an update that must reach the host. */
  change?: (outs: any) => Record<string, unknown>;
}

describe("identity: objects remade by someone else under the same name", function () {
  this.timeout(240_000);
  const tag = `id${process.pid}`;
  const tmp = tempDir("identity-");
  const warnings: string[] = [];
  const lab = () => labEnv();
  const host = () => labHost(lab());
  const vol = (name: string) => ["--pool", lab().pool, name];

  before(() => setLogSink((l) => warnings.push(l)));
  after(() => {
    setLogSink(undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const cases: Case[] = [
    {
      kind: "Image",
      provider: imageProvider,
      inputs: () => ({ name: `${tag}-image`, source: { path: lab().image } }),
      // the same bytes, uploaded again by someone else
      remake: (o) => {
        virsh(["vol-delete", ...vol(o.name)]);
        virsh(["vol-create-as", lab().pool, o.name, "64M", "--format", "qcow2"]);
        virsh(["vol-upload", ...vol(o.name), lab().image]);
      },
      exists: (o) => volumeNames(lab()).includes(o.name),
      cleanup: (o) => virsh(["vol-delete", ...vol(o.name)]),
    },
    {
      kind: "qcow2 Volume",
      provider: volumeProvider,
      inputs: () => ({ name: `${tag}-qcow2`, capacity: "16MiB" }),
      // the same format and size: only the identity in its header tells them apart
      remake: (o) => {
        virsh(["vol-delete", ...vol(o.name)]);
        virsh(["vol-create-as", lab().pool, o.name, "16M", "--format", "qcow2"]);
      },
      exists: (o) => volumeNames(lab()).includes(o.name),
      cleanup: (o) => virsh(["vol-delete", ...vol(o.name)]),
      change: () => ({ capacity: "32MiB" }),
    },
    {
      kind: "raw Volume",
      provider: volumeProvider,
      inputs: () => ({ name: `${tag}-raw`, capacity: "16MiB", format: "raw" }),
      // a raw volume is known by its shape (docs/resources.md): this one has another size
      remake: (o) => {
        virsh(["vol-delete", ...vol(o.name)]);
        virsh(["vol-create-as", lab().pool, o.name, "8M", "--format", "raw"]);
      },
      exists: (o) => volumeNames(lab()).includes(o.name),
      cleanup: (o) => virsh(["vol-delete", ...vol(o.name)]),
    },
    {
      kind: "StoragePool",
      provider: storagePoolProvider,
      inputs: () => ({ name: `${tag}-pool`, path: `/var/lib/libvirt/${tag}-pool` }),
      // inactive, as the issue found: an inactive pool used to have its directory deleted
      remake: (o) => {
        virsh(["pool-destroy", o.name]);
        virsh(["pool-undefine", o.name]);
        virsh(["pool-define-as", o.name, "dir", "--target", o.path]);
      },
      exists: (o) => poolNames().includes(o.name) && fs.existsSync(o.path),
      cleanup: (o) => {
        virsh(["pool-undefine", o.name]);
        fs.rmSync(o.path, { recursive: true, force: true });
      },
      change: () => ({ autostart: false }),
    },
    {
      kind: "Network",
      provider: networkProvider,
      inputs: () => ({ name: `${tag}-net`, mode: "isolated", addresses: [`${unroutedSubnet("192.168.182")}.1/24`] }),
      remake: (o) => {
        virsh(["net-destroy", o.name]);
        virsh(["net-undefine", o.name]);
        const xml = path.join(tmp, "net.xml");
        fs.writeFileSync(xml, `<network><name>${o.name}</name><ip address='${unroutedSubnet("192.168.183")}.1' prefix='24'/></network>`);
        virsh(["net-define", xml]);
        virsh(["net-start", o.name]);
      },
      exists: (o) => networkNames().includes(o.name),
      cleanup: (o) => {
        virsh(["net-destroy", o.name]);
        virsh(["net-undefine", o.name]);
      },
      change: (o) => ({ dhcp: undefined, autostart: !o.autostart }),
    },
    {
      kind: "Domain (and its seed)",
      provider: domainProvider,
      inputs: () => ({
        name: `${tag}-vm`,
        type: "qemu",
        memory: "128MiB",
        running: false,
        disks: [{ volume: `${tag}-vm-disk`, format: "raw" }],
        cloudInit: { hostname: `${tag}-vm` },
      }),
      remake: (o) => {
        virsh(["undefine", o.name]);
        virsh(["vol-delete", ...vol(o.seedVolume)]);
        virsh(["vol-create-as", lab().pool, o.seedVolume, "1M", "--format", "raw"]);
        const xml = path.join(tmp, "dom.xml");
        fs.writeFileSync(xml, `<domain type='qemu'><name>${o.name}</name><memory unit='MiB'>64</memory><os><type>hvm</type></os></domain>`);
        virsh(["define", xml]);
      },
      exists: (o) => domainNames().includes(o.name) && volumeNames(lab()).includes(o.seedVolume),
      cleanup: (o) => {
        virsh(["undefine", o.name]);
        virsh(["vol-delete", ...vol(o.seedVolume)]);
      },
    },
  ];

  before(() => virsh(["vol-create-as", lab().pool, `${tag}-vm-disk`, "8M", "--format", "raw"]));
  after(() => virsh(["vol-delete", ...vol(`${tag}-vm-disk`)]));

  for (const c of cases) {
    it(`${c.kind}: read says gone, update refuses, delete leaves the other object alone and says so, check says the name is taken`, async () => {
      const inputs = await checked(c.provider, { host: host(), ...c.inputs() });
      const { id, outs } = await c.provider.create(inputs);
      try {
        c.remake(outs);
        assert.strictEqual((await c.provider.read(id, outs)).id, "", "read took over the other object");
        // a preview of the program after that refresh: the resource is new, and its name is taken
        const fresh = await c.provider.check(undefined, { host: host(), ...c.inputs() });
        assert.ok(
          fresh.failures.some((f) => f.property === "name" && /already exists/.test(f.reason)),
          JSON.stringify(fresh.failures),
        );
        if (c.change && c.provider.update) {
          const news = await checked(c.provider, { ...inputs, ...c.change(outs) }, outs);
          await assert.rejects(c.provider.update(id, outs, news), /not the one this stack made/);
        }
        warnings.length = 0;
        await c.provider.delete(id, outs);
        assert.ok(c.exists(outs), "delete removed the other object");
        assert.match(warnings.join("\n"), /is not the one this stack made.*left it alone/);
      } finally {
        c.cleanup(outs);
      }
    });
  }

  /** Runs a create in another process and kills it with SIGKILL once libvirt answered `rpc` (and `afterMs` more passed). */
  async function killedCreate(kind: string, inputs: object, rpc: string, journal: string, afterMs = 0): Promise<void> {
    const child = spawn(process.execPath, [path.join(__dirname, "../support/create-child.js"), kind, JSON.stringify(inputs)], {
      env: { ...process.env, PULUMI_KVM_LOG: "1", PULUMI_KVM_JOURNAL: journal },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    let killed = false;
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
        if (!killed && err.includes(`rpc=${rpc}`)) {
          killed = true;
          setTimeout(() => child.kill("SIGKILL"), afterMs);
        }
      });
      child.on("close", (code, signal) =>
        killed && signal === "SIGKILL" ? resolve() : reject(new Error(`the create ended (${code ?? signal}) before ${rpc}: ${err}`)),
      );
    });
  }

  it("a create killed with SIGKILL: its leftover, proven by the identity journalled before it existed, goes with the next operation; another object that took the name is left alone", async () => {
    const journal = path.join(tmp, "journal.json");
    const previous = process.env.PULUMI_KVM_JOURNAL;
    process.env.PULUMI_KVM_JOURNAL = journal;
    try {
      const net = { host: host(), name: `${tag}-killed`, mode: "isolated", addresses: [`${unroutedSubnet("192.168.184")}.1/24`] } as NetworkInputs;
      await killedCreate("network", net, "virNetworkDefineXML", journal);
      const entry = JSON.parse(fs.readFileSync(journal, "utf8"))[0];
      assert.strictEqual(entry.name, net.name);
      assert.match(entry.id, /^[0-9a-f]{32}$/, "the journal holds the UUID chosen before the define");
      assert.ok(networkNames().includes(net.name));
      // preview counts the name of our own leftover as free
      assert.deepStrictEqual((await networkProvider.check(undefined, net)).failures, []);
      // someone else takes the name before the next operation
      removeNetwork(net.name);
      fs.writeFileSync(path.join(tmp, "other.xml"), `<network><name>${net.name}</name></network>`);
      virsh(["net-define", path.join(tmp, "other.xml")]);
      const taken = await networkProvider.check(undefined, net);
      assert.deepStrictEqual(
        taken.failures.map((f) => f.property),
        ["name"],
        "preview counted someone else's network as our leftover",
      );
      warnings.length = 0;
      await hostPool.run(net.host, (lv) => clearLeftovers(net.host, lv));
      assert.ok(networkNames().includes(net.name), "the next operation removed someone else's network");
      assert.match(warnings.join("\n"), /someone else's and was left alone/);
      virsh(["net-undefine", net.name]);

      // the same kill again, and nobody touches it: the next create removes our leftover and makes its own
      await killedCreate("network", net, "virNetworkDefineXML", journal);
      const { outs } = await networkProvider.create(await checked(networkProvider, net));
      assert.notStrictEqual(outs.uuid.replace(/-/g, ""), JSON.parse(fs.readFileSync(journal, "utf8"))[0]?.id);
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(journal, "utf8")), []);
      await networkProvider.delete(outs.uuid, outs);
      assert.ok(!networkNames().includes(net.name));

      // a qcow2 volume: its identity is in the journal before the volume exists
      const disk = { host: host(), name: `${tag}-killed.qcow2`, capacity: "16MiB" } as VolumeInputs;
      await killedCreate("volume", disk, "virStorageVolUpload", journal);
      assert.match(JSON.parse(fs.readFileSync(journal, "utf8"))[0].id, /^[0-9a-f-]{36}(\|mtime:\d+\.\d+)?$/, "the marker, chosen before; its mtime once made");
      assert.ok(volumeNames(lab()).includes(disk.name));
      const made = await volumeProvider.create(await checked(volumeProvider, disk));
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(journal, "utf8")), [], "the leftover, proven, was removed by the next create");
      await volumeProvider.delete(made.id, made.outs);
    } finally {
      if (previous === undefined) delete process.env.PULUMI_KVM_JOURNAL;
      else process.env.PULUMI_KVM_JOURNAL = previous;
    }
  });

  it("an object removed and made again by someone else while its create is under way: the create fails, and its undo leaves theirs alone", async () => {
    const xmlFile = path.join(tmp, "stranger.xml");
    const data = (
      await volumeProvider.create(await checked(volumeProvider, { host: host(), name: `${tag}-vmdisk`, format: "raw", capacity: "8MiB" } as VolumeInputs))
    ).outs;
    const big = path.join(tmp, "stranger-big.raw");
    fs.writeFileSync(big, crypto.randomBytes(192 * 1024 * 1024));
    const strangerBytes = crypto.randomBytes(4096);
    const cases = [
      {
        kind: "network",
        name: `${tag}-racenet`,
        rpc: "virNetworkDefineXML",
        create: (name: string) =>
          networkProvider.create({
            host: host(),
            name,
            mode: "isolated",
            addresses: [`${unroutedSubnet("192.168.186")}.1/24`],
            autostart: false,
            active: true,
          } as NetworkInputs),
        swap: (name: string) => {
          virsh(["net-undefine", name]);
          fs.writeFileSync(xmlFile, `<network><name>${name}</name></network>`);
          virsh(["net-define", xmlFile]);
          return virsh(["net-uuid", name]);
        },
        stranger: (name: string, uuid: string) => networkNames().includes(name) && virsh(["net-uuid", name]) === uuid,
        cleanup: (name: string) => virsh(["net-undefine", name]),
      },
      {
        kind: "domain",
        name: `${tag}-racevm`,
        rpc: "virDomainDefineXML",
        create: async (name: string) =>
          domainProvider.create(
            await checked(domainProvider, { host: host(), name, type: "qemu", memory: "64MiB", running: false, disks: [{ volume: data.name, format: "raw" }] }),
          ),
        swap: (name: string) => {
          virsh(["undefine", "--nvram", name]);
          fs.writeFileSync(xmlFile, `<domain type='qemu'><name>${name}</name><memory unit='MiB'>32</memory><os><type>hvm</type></os></domain>`);
          virsh(["define", xmlFile]);
          return virsh(["domuuid", name]);
        },
        stranger: (name: string, uuid: string) => domainNames().includes(name) && virsh(["domuuid", name]) === uuid,
        cleanup: (name: string) => virsh(["undefine", name]),
      },
      {
        kind: "image",
        name: `${tag}-raceimg.raw`,
        rpc: "virStorageVolCreateXML",
        // mid-upload: libvirtd writes on into the file it opened, removed from the pool
        delayMs: 300,
        create: async (name: string) => imageProvider.create(await checked(imageProvider, { host: host(), name, source: { path: big } } as ImageInputs)),
        swap: (name: string) => {
          virsh(["vol-delete", ...vol(name)]);
          virsh(["vol-create-as", lab().pool, name, "4096", "--format", "raw"]);
          fs.writeFileSync(path.join(tmp, "stranger.bin"), strangerBytes);
          virsh(["vol-upload", ...vol(name), path.join(tmp, "stranger.bin")]);
          return "";
        },
        stranger: (name: string) => volumeNames(lab()).includes(name) && fs.readFileSync(virsh(["vol-path", ...vol(name)])).equals(strangerBytes),
        cleanup: (name: string) => virsh(["vol-delete", ...vol(name)]),
      },
    ];
    process.env.PULUMI_KVM_LOG = "1";
    try {
      for (const c of cases) {
        let swapped: string | undefined;
        warnings.length = 0;
        setLogSink((line) => {
          warnings.push(line);
          if (swapped === undefined && line.includes(`rpc=${c.rpc}`) && line.includes(c.name)) {
            // at once, before the create's next call, unless the moment is later
            if (c.delayMs === undefined) swapped = c.swap(c.name);
            else {
              swapped = "";
              setTimeout(() => (swapped = c.swap(c.name)), c.delayMs);
            }
          }
        });
        try {
          await assert.rejects(c.create(c.name), `${c.kind}: the create succeeded on someone else's object`);
          assert.ok(swapped !== undefined, `${c.kind}: the swap never ran`);
          assert.ok(c.stranger(c.name, swapped), `${c.kind}: the stranger's object was removed or changed`);
          const left = `${c.name.replace(/\./g, "\\.")} a failed create left was removed since; the \\w+ of that name now is someone else's and was left alone`;
          assert.match(warnings.join("\n"), new RegExp(left), c.kind);
        } finally {
          setLogSink((l) => warnings.push(l));
          c.cleanup(c.name);
        }
      }
    } finally {
      delete process.env.PULUMI_KVM_LOG;
      fs.rmSync(big, { force: true });
      await volumeProvider.delete(data.key, data);
    }
  });

  it("an Image or Volume passed on with its record, whose volume someone removed and made again: a Volume over it and a VM of it are refused, naming the property", async () => {
    const img = (
      await imageProvider.create(await checked(imageProvider, { host: host(), name: `${tag}-rec-base`, source: { path: lab().image } } as ImageInputs))
    ).outs;
    const disk = (await volumeProvider.create(await checked(volumeProvider, { host: host(), name: `${tag}-rec-disk`, capacity: "16MiB" } as VolumeInputs)))
      .outs;
    try {
      // the same bytes and the same shape, made again by someone else
      virsh(["vol-delete", ...vol(img.name)]);
      virsh(["vol-create-as", lab().pool, img.name, "64M", "--format", "qcow2"]);
      virsh(["vol-upload", ...vol(img.name), lab().image]);
      virsh(["vol-delete", ...vol(disk.name)]);
      virsh(["vol-create-as", lab().pool, disk.name, "16M", "--format", "qcow2"]);
      const before = mine(volumeNames(lab()));
      const overlay = await checked(volumeProvider, {
        host: host(),
        name: `${tag}-rec-overlay`,
        baseImage: img.name,
        sourceFormat: img.format,
        sourceIdentity: img.identity,
      } as VolumeInputs);
      await assert.rejects(volumeProvider.create(overlay), (e: Error & { property?: string }) => {
        assert.match(
          e.message,
          /baseImage ".*-rec-base" is not the Image this stack made: it was removed and a volume of that name made again by someone else/,
        );
        assert.strictEqual(e.property, "baseImage");
        return true;
      });
      const vm = await checked(domainProvider, {
        host: host(),
        name: `${tag}-rec-vm`,
        type: "qemu",
        memory: "64MiB",
        running: false,
        disks: [{ volume: disk.name, format: "qcow2", identity: disk.identity }],
      });
      await assert.rejects(domainProvider.create(vm), (e: Error & { property?: string }) => {
        assert.match(e.message, /volume ".*-rec-disk" is not the Volume this stack made/);
        assert.strictEqual(e.property, "disks[0].volume");
        return true;
      });
      assert.deepStrictEqual(mine(volumeNames(lab())), before, "a volume was made or removed");
      assert.ok(!domainNames().includes(`${tag}-rec-vm`));
      // by name, without a record, the same volumes are taken as the program says
      const byName = await checked(volumeProvider, { host: host(), name: `${tag}-rec-overlay`, baseImage: img.name, sourceFormat: img.format } as VolumeInputs);
      const made = (await volumeProvider.create(byName)).outs;
      await volumeProvider.delete(made.key, made);
    } finally {
      virsh(["vol-delete", ...vol(img.name)]);
      virsh(["vol-delete", ...vol(disk.name)]);
    }
  });

  it("an Image killed mid-upload (SIGKILL): the mark at its head proves it to the next operation, which removes it; a same-named volume made meanwhile is left alone", async () => {
    const journal = path.join(tmp, "journal-image.json");
    const previous = process.env.PULUMI_KVM_JOURNAL;
    process.env.PULUMI_KVM_JOURNAL = journal;
    const file = path.join(tmp, "big.raw");
    fs.writeFileSync(file, crypto.randomBytes(256 * 1024 * 1024));
    const image = { host: host(), name: `${tag}-half.img`, source: { path: file } } as ImageInputs;
    const volPath = () => virsh(["vol-path", ...vol(image.name)]);
    try {
      await killedCreate("image", image, "virStorageVolCreateXML", journal, 500);
      const entry = JSON.parse(fs.readFileSync(journal, "utf8"))[0];
      assert.match(entry.id, /^head:[0-9a-f]{32}(\|mtime:\d+\.\d+)?$/, "the journal holds the mark chosen before the volume existed (and its mtime when made)");
      const head = fs.readFileSync(volPath()).subarray(0, 64).toString("latin1");
      assert.ok(head.startsWith(`pulumi-kvm ${entry.id.slice(5, 37)}\n`), `the half-uploaded volume starts with its mark: ${JSON.stringify(head)}`);
      // someone removes it and makes a volume of the same name (the same path, the same key)
      virsh(["vol-delete", ...vol(image.name)]);
      virsh(["vol-create-as", lab().pool, image.name, "1M", "--format", "raw"]);
      warnings.length = 0;
      await hostPool.run(image.host, (lv) => clearLeftovers(image.host, lv));
      assert.ok(volumeNames(lab()).includes(image.name), "the next operation removed someone else's volume");
      // theirs is empty: without the mtime (the kill may come before it is read) nothing tells whose it is
      assert.match(warnings.join("\n"), /someone else's and was left alone|nothing proves that the volume of that name is the one it made/);
      virsh(["vol-delete", ...vol(image.name)]);

      // killed again, and nobody touches it: any later process proves it and removes it
      await killedCreate("image", image, "virStorageVolCreateXML", journal, 500);
      assert.ok(volumeNames(lab()).includes(image.name));
      await hostPool.run(image.host, (lv) => clearLeftovers(image.host, lv));
      assert.ok(!volumeNames(lab()).includes(image.name), "the half-uploaded Image was left behind");
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(journal, "utf8")), []);
    } finally {
      if (volumeNames(lab()).includes(image.name)) virsh(["vol-delete", ...vol(image.name)]);
      fs.rmSync(file, { force: true });
      if (previous === undefined) delete process.env.PULUMI_KVM_JOURNAL;
      else process.env.PULUMI_KVM_JOURNAL = previous;
    }
  });

  it("a Volume made from an Image proves itself after qemu rewrote its header (a resize), and a VM can use it", async () => {
    const img = (await imageProvider.create(await checked(imageProvider, { host: host(), name: `${tag}-base`, source: { path: lab().image } } as ImageInputs)))
      .outs;
    const disk = (
      await volumeProvider.create(
        await checked(volumeProvider, { host: host(), name: `${tag}-overlay`, baseImage: img.name, sourceFormat: img.format } as VolumeInputs),
      )
    ).outs;
    try {
      assert.match(disk.identity?.marker ?? "", /^[0-9a-f-]{36}$/);
      const grown = await checked(
        volumeProvider,
        { host: host(), name: disk.name, baseImage: img.name, sourceFormat: img.format, capacity: "128MiB" } as VolumeInputs,
        disk,
      );
      const { outs } = await volumeProvider.update(disk.key, disk, grown);
      assert.strictEqual(outs.capacityBytes, 128 * 1024 * 1024);
      assert.strictEqual((await volumeProvider.read(outs.key, outs)).id, outs.key, "the identity survived qemu-img resize");
      const vm = (
        await domainProvider.create(
          await checked(domainProvider, {
            host: host(),
            name: `${tag}-user`,
            type: "qemu",
            memory: "128MiB",
            disks: [{ volume: outs.name, format: "qcow2", backing: outs.backing }],
            // the guest is not asked to shut down mid-boot: what matters is that it started on the disk
            shutdownTimeout: "1s",
          }),
        )
      ).outs;
      await domainProvider.delete(vm.uuid, vm);
      await volumeProvider.delete(outs.key, outs);
      assert.ok(!volumeNames(lab()).includes(disk.name));
    } finally {
      await imageProvider.delete(img.key, img);
    }
  });
});
