// StoragePool and Network against the lab, and the NICs beside libvirt networks: bridge
// and direct (macvtap) interfaces, whose addresses libvirt can only tell from the host's
// ARP table (or the guest agent).
import * as assert from "assert";
import * as fs from "fs";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { networkProvider, NetworkInputs, NetworkOutputs } from "../../provider/kinds/network/lifecycle";
import { storagePoolProvider, StoragePoolInputs, StoragePoolOutputs } from "../../provider/kinds/storage-pool/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { setLogSink } from "../../provider/log";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { domainNames, leases, networkNames, poolNames, virsh } from "../support/virsh";
import { unroutedSubnet } from "../support/subnet";
import { diskOf } from "../support/disks";

const MiB = 1024 * 1024;

describe("StoragePool and Network", function () {
  this.timeout(300_000);
  const tag = `pn${process.pid}`;
  const host = () => labHost(labEnv());
  const cleanup: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  const makePool = async (news: Partial<StoragePoolInputs>): Promise<StoragePoolOutputs> => {
    const { outs } = await storagePoolProvider.create(await checked(storagePoolProvider, { host: host(), ...news } as StoragePoolInputs));
    cleanup.push(() => storagePoolProvider.delete(outs.uuid, outs));
    return outs;
  };
  const makeNetwork = async (news: Partial<NetworkInputs>): Promise<NetworkOutputs> => {
    const { outs } = await networkProvider.create(await checked(networkProvider, { host: host(), ...news } as NetworkInputs));
    cleanup.push(() => networkProvider.delete(outs.uuid, outs));
    return outs;
  };
  const makeVolume = async (news: Partial<VolumeInputs>): Promise<VolumeOutputs> => {
    const { outs } = await volumeProvider.create(await checked(volumeProvider, { host: host(), ...news } as VolumeInputs));
    cleanup.push(() => volumeProvider.delete(outs.key, outs));
    return outs;
  };
  const makeDomain = async (news: Partial<DomainInputs>): Promise<DomainOutputs> => {
    const { outs } = await domainProvider.create(
      await checked(domainProvider, { host: host(), type: "qemu", memory: "128MiB", shutdownTimeout: "10s", ...news } as DomainInputs),
    );
    cleanup.push(() => domainProvider.delete(outs.uuid, outs));
    return outs;
  };

  describe("StoragePool", () => {
    let pool: StoragePoolOutputs;
    const dir = `/var/lib/libvirt/${tag}-pool`;

    it("defines, builds (its directory), starts and autostarts a dir pool; its outputs are libvirt's", async () => {
      pool = await makePool({ resourceName: `${tag}-pool`, path: `${dir}/` });
      assert.strictEqual(pool.path, dir, "the path as libvirt keeps it, without the trailing slash");
      assert.strictEqual(pool.state, "running");
      assert.strictEqual(pool.autostart, true);
      assert.ok(pool.capacityBytes > 0 && pool.availableBytes > 0 && pool.availableBytes <= pool.capacityBytes);
      assert.match(pool.uuid, /^[0-9a-f-]{36}$/);
      assert.ok(fs.statSync(dir).isDirectory());
      assert.match(virsh(["pool-info", pool.name]), /Autostart:\s+yes/);
    });

    it("turns autostart off in place, and sees a pool stopped outside Pulumi on read", async () => {
      const news = await checked(storagePoolProvider, { ...pool, autostart: false }, pool);
      assert.deepStrictEqual(await storagePoolProvider.diff(pool.uuid, pool, news), { changes: true, replaces: [], deleteBeforeReplace: false });
      pool = (await storagePoolProvider.update(pool.uuid, pool, news)).outs;
      assert.match(virsh(["pool-info", pool.name]), /Autostart:\s+no/);
      virsh(["pool-destroy", pool.name]);
      const { props } = await storagePoolProvider.read(pool.uuid, pool);
      assert.strictEqual(props.state, "inactive", "drift shows on refresh");
      assert.strictEqual((await storagePoolProvider.diff(pool.uuid, props, news)).changes, true, "the next up starts it again");
      pool = (await storagePoolProvider.update(pool.uuid, props, { ...news, autostart: true })).outs;
      assert.strictEqual(pool.state, "running", "the next update starts it again");
    });

    it("replaces on a new path, and changes nothing for the same inputs", async () => {
      const same = await checked(storagePoolProvider, { host: host(), resourceName: `${tag}-pool`, path: dir } as StoragePoolInputs, pool);
      assert.strictEqual((await storagePoolProvider.diff(pool.uuid, pool, same)).changes, false);
      const moved = { ...same, path: `${dir}-2` };
      assert.deepStrictEqual((await storagePoolProvider.diff(pool.uuid, pool, moved)).replaces, ["path"]);
    });

    it("takes Images and Volumes, makes full copies with progress, and refuses to go while they remain, naming them", async () => {
      const lab = labEnv();
      const { outs: image } = await imageProvider.create(
        await checked(imageProvider, { host: host(), pool: pool.name, name: `${tag}-image`, source: { path: lab.image } }),
      );
      cleanup.push(() => imageProvider.delete(image.key, image));
      assert.ok(image.path.startsWith(`${dir}/`));
      // a raw volume of random data (a few seconds of work for the host), copied into qcow2
      const size = 1536 * MiB;
      const big = await makeVolume({ pool: pool.name, name: `${tag}-big`, capacity: size, format: "raw" });
      const fd = fs.openSync(big.path, "r+");
      const block = Buffer.alloc(4 * MiB);
      for (let off = 0; off < size; off += block.length) fs.writeSync(fd, require("crypto").randomFillSync(block), 0, block.length, off);
      fs.closeSync(fd);
      const lines: string[] = [];
      setLogSink((l) => lines.push(l));
      let copy: VolumeOutputs;
      try {
        copy = await makeVolume({ pool: pool.name, name: `${tag}-copy`, cloneOf: big.name, sourceFormat: big.format });
      } finally {
        setLogSink(undefined);
      }
      assert.strictEqual(copy.format, "qcow2");
      assert.strictEqual(copy.capacityBytes, size);
      assert.doesNotMatch(virsh(["vol-dumpxml", "--pool", pool.name, copy.name]), /<backingStore>\s*<path>/, "independent of its source");
      const progress = lines.filter((l) => l.includes(`copy ${pool.name}/${big.name} → ${copy.name}`));
      console.log(`      copy of 1.5 GiB of random data: ${progress.length} progress line(s), e.g. ${progress[0] ?? "none"}`);
      assert.ok(progress.length >= 1 && progress.every((l) => /\d+% [\d.]+ MiB\/s done \(\d+ of 1536 MiB\)/.test(l)), `progress lines:\n${lines.join("\n")}`);
      assert.match(progress[progress.length - 1], / 100% /, "the last line says it is done");

      let err: Error | undefined;
      try {
        await storagePoolProvider.delete(pool.uuid, pool);
      } catch (e) {
        err = e as Error;
      }
      assert.match(err?.message ?? "", new RegExp(`still holds 3 volume\\(s\\): .*${tag}-big.*Delete those volumes first`));
      assert.ok(poolNames().includes(pool.name), "the pool stays");
    });

    it("removes its directory with the pool once the volumes are gone", async () => {
      // the volumes of the previous test, newest first
      while (cleanup.length > 1) await cleanup.pop()!();
      await storagePoolProvider.delete(pool.uuid, pool);
      cleanup.pop();
      assert.ok(!poolNames().includes(pool.name));
      assert.ok(!fs.existsSync(dir));
      await storagePoolProvider.delete(pool.uuid, pool); // gone is success
    });
  });

  describe("Network", () => {
    let net: NetworkOutputs;
    const subnet = unroutedSubnet("192.168.174");

    it("defines, starts and autostarts an isolated network with DHCP and a reservation; libvirt names its bridge", async () => {
      net = await makeNetwork({
        resourceName: `${tag}-net`,
        mode: "isolated",
        addresses: [`${subnet}.1/24`],
        domain: `${tag}.internal`,
        dhcp: { start: `${subnet}.100`, end: `${subnet}.199`, hosts: [{ mac: "52:54:00:AA:00:01", ip: `${subnet}.11` }] },
      });
      assert.strictEqual(net.active, true);
      assert.strictEqual(net.autostart, true);
      assert.match(net.bridge, /^virbr\d+$/);
      const xml = virsh(["net-dumpxml", net.name]);
      assert.match(xml, /<domain name='pn\d+\.internal'\/>/);
      assert.match(xml, new RegExp(`<host mac='52:54:00:aa:00:01' ip='${subnet}.11'/>`), "MACs as libvirt writes them");
      const same = await checked(
        networkProvider,
        {
          host: host(),
          resourceName: `${tag}-net`,
          mode: "isolated",
          addresses: [`${subnet}.1/24`],
          domain: `${tag}.internal`,
          dhcp: { start: `${subnet}.100`, end: `${subnet}.199`, hosts: [{ mac: "52:54:00:aa:00:01", ip: `${subnet}.11` }] },
        } as NetworkInputs,
        net,
      );
      assert.strictEqual((await networkProvider.diff(net.uuid, net, same)).changes, false, "libvirt's bridge name is no diff");
    });

    it("changes reservations in place, live; a new range or address replaces", async () => {
      const news = await checked(
        networkProvider,
        {
          ...net,
          bridge: undefined,
          dhcp: {
            ...net.dhcp!,
            hosts: [
              { mac: "52:54:00:aa:00:01", ip: `${subnet}.12`, name: "one" },
              { mac: "52:54:00:aa:00:02", ip: `${subnet}.13` },
            ],
          },
        },
        net,
      );
      assert.deepStrictEqual(await networkProvider.diff(net.uuid, net, news), { changes: true, replaces: [], deleteBeforeReplace: false });
      net = (await networkProvider.update(net.uuid, net, news)).outs;
      const xml = virsh(["net-dumpxml", net.name]);
      assert.match(xml, new RegExp(`<host mac='52:54:00:aa:00:01' name='one' ip='${subnet}.12'/>`));
      assert.match(xml, new RegExp(`<host mac='52:54:00:aa:00:02' ip='${subnet}.13'/>`));
      assert.match(virsh(["net-dumpxml", "--inactive", net.name]), new RegExp(`ip='${subnet}.13'`), "in the persistent definition too");
      assert.match(
        fs.readFileSync(`/var/lib/libvirt/dnsmasq/${net.name}.hostsfile`, "utf8"),
        new RegExp(`52:54:00:aa:00:02,${subnet}.13`),
        "and live in dnsmasq",
      );
      assert.deepStrictEqual((await networkProvider.diff(net.uuid, net, { ...news, dhcp: { ...news.dhcp!, end: `${subnet}.150` } })).replaces, ["dhcp"]);
      assert.deepStrictEqual((await networkProvider.diff(net.uuid, net, { ...news, addresses: ["192.168.175.1/24"] })).replaces, ["addresses"]);
    });

    it("sees no change when libvirt lists the reservations in another order than the program", async () => {
      const reordered = { ...net, bridge: undefined, dhcp: { ...net.dhcp!, hosts: [...net.dhcp!.hosts!].reverse() } } as NetworkInputs;
      const { props } = await networkProvider.read(net.uuid, net);
      assert.strictEqual((await networkProvider.diff(net.uuid, props, await checked(networkProvider, reordered, props))).changes, false);
    });

    it("shows a reservation removed outside Pulumi on read", async () => {
      virsh(["net-update", net.name, "delete", "ip-dhcp-host", "<host mac='52:54:00:aa:00:02'/>", "--live", "--config"]);
      const { props } = await networkProvider.read(net.uuid, net);
      assert.deepStrictEqual(
        props.dhcp!.hosts!.map((h) => h.mac),
        ["52:54:00:aa:00:01"],
      );
      assert.strictEqual((await networkProvider.diff(net.uuid, props, net)).changes, true, "the next up puts it back");
    });

    it("refuses to go while a VM on it runs, naming the VM (the e2e shows a VM leased on such a network)", async () => {
      const lab = labEnv();
      const { outs: image } = await imageProvider.create(
        await checked(imageProvider, { host: host(), name: `${tag}-base`, source: { path: lab.image } } as ImageInputs),
      );
      cleanup.push(() => imageProvider.delete(image.key, image));
      const overlay = await makeVolume({ name: `${tag}-boot.qcow2`, baseImage: image.name, sourceFormat: image.format });
      const vm = await makeDomain({ name: `${tag}-vm`, disks: [diskOf(overlay)], networkInterfaces: [{ network: net.name }] });
      let err: Error | undefined;
      try {
        await networkProvider.delete(net.uuid, net);
      } catch (e) {
        err = e as Error;
      }
      assert.match(err?.message ?? "", new RegExp(`network "${net.name}" is used by running domain ${vm.name}`));
      assert.ok(networkNames().includes(net.name));
      await domainProvider.delete(vm.uuid, vm);
      await networkProvider.delete(net.uuid, net);
      assert.ok(!networkNames().includes(net.name));
    });
  });

  for (const [mode, third] of [
    ["nat", 177],
    ["route", 178],
  ] as const) {
    it(`Network in ${mode} mode: forwarding set up by libvirt (inside the lab's namespace), torn down on delete`, async () => {
      const n = await makeNetwork({ resourceName: `${tag}-${mode}`, mode, addresses: [`${unroutedSubnet(`192.168.${third}`)}.1/24`] });
      assert.strictEqual(n.active, true);
      assert.match(virsh(["net-dumpxml", n.name]), new RegExp(`<forward mode='${mode}'`));
      await networkProvider.delete(n.uuid, n);
      cleanup.pop();
      assert.ok(!networkNames().includes(n.name));
    });
  }

  it("Network on a subnet an interface of the host already routes: create fails naming addresses, the interface and the fix, and leaves nothing", async () => {
    const taken = "192.168.150"; // the lab network's, routed by its bridge
    const name = `${tag}-taken`;
    const err = await networkProvider
      .create(await checked(networkProvider, { host: host(), resourceName: name, mode: "isolated", addresses: [`${taken}.1/24`] } as NetworkInputs))
      .then(
        () => undefined,
        (e: Error) => e,
      );
    assert.match(
      err?.message ?? "",
      new RegExp(`addresses.*${taken.replace(/\./g, "\\.")}\\.1/24.*already routed on the host by interface ${labEnv().bridge}`),
    );
    assert.match(err?.message ?? "", /Choose a subnet no interface of the host routes/);
    assert.ok(!networkNames().includes(name), "the network defined before the start is gone");
  });

  it("Network in bridge mode: a libvirt network on the host's existing bridge", async () => {
    const lab = labEnv();
    const lan = await makeNetwork({ resourceName: `${tag}-lan`, mode: "bridge", bridge: lab.bridge });
    assert.strictEqual(lan.bridge, lab.bridge);
    assert.strictEqual(lan.active, true);
    assert.match(virsh(["net-dumpxml", lan.name]), new RegExp(`<forward mode='bridge'/>\\s*<bridge name='${lab.bridge}'/>`));
    await networkProvider.delete(lan.uuid, lan);
    cleanup.pop();
    assert.ok(!networkNames().includes(lan.name));
    assert.match(virsh(["net-info", lab.network]), /Active:\s+yes/, "the bridge's own network is untouched");
  });

  describe("bridge and direct NICs", () => {
    let image: ImageOutputs;
    before(async () => {
      image = (
        await imageProvider.create(await checked(imageProvider, { host: host(), name: `${tag}-nic-base`, source: { path: labEnv().image } } as ImageInputs))
      ).outs;
      cleanup.push(() => imageProvider.delete(image.key, image));
    });

    /** Polls the lab network's leases (its dnsmasq serves the bridge, and the veth whose other end is the direct NIC's device). */
    const leaseOf = async (mac: string): Promise<string> => {
      for (let i = 0; i < 90; i++) {
        const l = leases(labEnv().network).find((x) => x.mac === mac);
        if (l) return l.ip;
        await new Promise((r) => setTimeout(r, 1000));
      }
      throw new Error(`no lease for ${mac} on ${labEnv().network}`);
    };

    it("boots a VM on a direct NIC that reaches the LAN of its host device (macvtap)", async () => {
      const lab = labEnv();
      const overlay = await makeVolume({ name: `${tag}-direct.qcow2`, baseImage: image.name, sourceFormat: image.format });
      const vm = await makeDomain({ name: `${tag}-direct`, disks: [diskOf(overlay)], networkInterfaces: [{ direct: { dev: lab.directDev } }] });
      assert.strictEqual(vm.interfaces[0].network, `direct:${lab.directDev}`);
      assert.match(virsh(["dumpxml", vm.name]), new RegExp(`<interface type='direct'>[\\s\\S]*<source dev='${lab.directDev}' mode='bridge'/>`));
      // the LAN's DHCP server (the lab network's dnsmasq, behind the veth) leased the guest an address
      assert.match(await leaseOf(vm.interfaces[0].mac), /^192\.168\.150\.1\d\d$/);
      await domainProvider.delete(vm.uuid, vm);
      assert.ok(!domainNames().includes(vm.name));
    });

    it("boots a VM on a bridge NIC; a wait for its address from the host's ARP table (source \"arp\") finds the lease's address, or says why libvirt cannot read the table and keeps the VM", async () => {
      const lab = labEnv();
      const overlay = await makeVolume({ name: `${tag}-bridge.qcow2`, baseImage: image.name, sourceFormat: image.format });
      const inputs = await checked(domainProvider, {
        host: host(),
        name: `${tag}-bridge`,
        type: "qemu",
        memory: "128MiB",
        shutdownTimeout: "10s",
        disks: [diskOf(overlay)],
        networkInterfaces: [{ bridge: lab.bridge }],
        waitForIp: { timeout: "90s", source: "arp" },
      });
      let vm: DomainOutputs | undefined;
      let err: (Error & { properties?: DomainOutputs }) | undefined;
      try {
        vm = (await domainProvider.create(inputs)).outs;
      } catch (e) {
        err = e as Error & { properties?: DomainOutputs };
      }
      const outs = vm ?? err?.properties;
      assert.ok(outs, `the VM exists: ${err?.message}`);
      cleanup.push(() => domainProvider.delete(outs.uuid, outs));
      assert.strictEqual(outs.interfaces[0].network, `bridge:${lab.bridge}`);
      assert.match(virsh(["dumpxml", outs.name]), new RegExp(`<interface type='bridge'>[\\s\\S]*<source bridge='${lab.bridge}'/>`));
      // the bridge's LAN (the lab network's dnsmasq) leased the guest an address
      const lease = await leaseOf(outs.interfaces[0].mac);
      assert.match(lease, /^192\.168\.150\.1\d\d$/);
      // the lab's libvirt (9.0) parses this kernel's netlink replies only some of the time
      if (vm) {
        assert.strictEqual(vm.ipAddress, lease, "libvirt read the ARP table: the wait found the address the LAN leased");
      } else {
        assert.match(
          err?.message ?? "",
          new RegExp(
            `root@127\\.0\\.0\\.1:${lab.port}: waitForIp\\.source: domain ${outs.name}: libvirt cannot read the host's ARP table \\(internal error: wrong nlmsg len.*source "agent" with qemuAgent: true`,
            "s",
          ),
        );
        assert.strictEqual(outs.state, "running", "the VM is kept and recorded (created but failed to initialize)");
      }
      // libvirt's own reading of the ARP table, through the system's virsh: the address, or the same netlink error
      let witness: string;
      try {
        witness = virsh(["domifaddr", outs.name, "--source", "arp"]);
      } catch (e) {
        witness = String((e as { stderr?: string }).stderr ?? e);
      }
      assert.ok(witness.includes(lease) || /nlmsg/.test(witness), witness);
    });
  });
});
