// NetworkFilter against the lab: a VM whose filter drops every new connection that comes in
// still gets its DHCP lease, and a neighbour on its network cannot ping it; rules changed in place (the same
// filter, the same running VM) let the ping through. the neighbour's ping is the witness
// that the traffic is filtered for real. A missing filter and a filter still in use fail
// naming the fix, and leave nothing behind.
import * as assert from "assert";
import { spawnSync } from "child_process";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { networkFilterProvider } from "../../provider/kinds/network-filter";
import type { NetworkFilterOutputs } from "../../provider/kinds/network-filter/declaration";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { checked } from "../support/checked";
import { diskOf } from "../support/disks";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { domainNames, virsh } from "../support/virsh";

/**
 * A machine on the lab network beside the VM: a namespace of its own whose veth is a port
 * of the lab network's bridge. Its traffic to the VM crosses the bridge, where libvirt's
 * filter applies (the host's own traffic to a guest never does: libvirt filters bridged traffic).
 */
class Neighbour {
  readonly netns = `nfpeer${process.pid}`;
  private readonly ends = [`nfa${process.pid}`.slice(0, 15), `nfb${process.pid}`.slice(0, 15)];

  constructor(address: string) {
    const lab = labEnv();
    const [bridgeEnd, ownEnd] = this.ends;
    run(["netns", "add", this.netns]);
    run(["link", "add", bridgeEnd, "type", "veth", "peer", "name", ownEnd]);
    run(["link", "set", bridgeEnd, "netns", lab.netns]);
    run(["link", "set", ownEnd, "netns", this.netns]);
    run(["netns", "exec", lab.netns, "ip", "link", "set", bridgeEnd, "master", lab.bridge, "up"]);
    run(["netns", "exec", this.netns, "ip", "addr", "add", `${address}/24`, "dev", ownEnd]);
    run(["netns", "exec", this.netns, "ip", "link", "set", ownEnd, "up"]);
  }

  /** Whether the VM answers its ping (1: no answer; anything else is a broken test). */
  pings(ip: string): boolean {
    const r = spawnSync("ip", ["netns", "exec", this.netns, "ping", "-n", "-c", "2", "-W", "3", ip], { encoding: "utf8" });
    if (r.status !== 0 && r.status !== 1) throw new Error(`ping could not run (scripts/lab up installs iputils-ping): ${r.stderr}${r.error ?? ""}`);
    return r.status === 0;
  }

  remove(): void {
    // the veth pair goes with its namespace
    spawnSync("ip", ["netns", "del", this.netns]);
  }
}

function run(args: string[]): void {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr}`);
}

describe("NetworkFilter", function () {
  this.timeout(300_000);
  const tag = `nf${process.pid}`;
  const host = () => labHost(labEnv());
  const cleanup: (() => Promise<unknown>)[] = [];
  let image: ImageOutputs;
  let overlay: VolumeOutputs;
  let filter: NetworkFilterOutputs;
  let vm: DomainOutputs;
  let neighbour: Neighbour;

  before(async () => {
    image = (await imageProvider.create(await checked(imageProvider, { host: host(), name: `${tag}-base`, source: { path: labEnv().image } } as ImageInputs)))
      .outs;
    cleanup.push(() => imageProvider.delete(image.key, image));
    const v = await checked(volumeProvider, { host: host(), name: `${tag}-vm.qcow2`, baseImage: image.name, sourceFormat: image.format } as VolumeInputs);
    overlay = (await volumeProvider.create(v)).outs;
    cleanup.push(() => volumeProvider.delete(overlay.key, overlay));
    neighbour = new Neighbour("192.168.150.250");
    cleanup.push(async () => neighbour.remove());
  });
  after(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  const vmInputs = (filterName: string, name = `${tag}-vm`): Promise<DomainInputs> =>
    checked(domainProvider, {
      host: host(),
      name,
      type: "qemu",
      memory: "128MiB",
      shutdownTimeout: "5s",
      disks: [diskOf(overlay)],
      networkInterfaces: [{ network: labEnv().network, filter: filterName }],
      waitForIp: { timeout: "120s", source: "lease" },
    });

  it("refuses a VM whose NIC names a filter the host lacks, naming the NIC's filter and the fix; nothing is left", async () => {
    const inputs = await vmInputs(`${tag}-missing`, `${tag}-nofilter`);
    await assert.rejects(domainProvider.create(inputs), (e: Error) => {
      assert.match(e.message, new RegExp(`networkInterfaces\\[0\\]\\.filter.*no network filter "${tag}-missing".*Pass the NetworkFilter resource itself`, "s"));
      return true;
    });
    assert.ok(!domainNames().includes(`${tag}-nofilter`));
  });

  it("drops new connections that come in, yet the VM gets its DHCP lease; a neighbour on its network cannot ping it", async () => {
    const news = await checked(networkFilterProvider, {
      host: host(),
      name: `${tag}-web`,
      rules: [{ action: "drop", direction: "in", protocol: "all", priority: 900 }],
    });
    filter = (await networkFilterProvider.create(news)).outs;
    cleanup.push(() => networkFilterProvider.delete(filter.uuid, filter));
    assert.match(filter.uuid, /^[0-9a-f-]{36}$/);
    assert.match(virsh(["nwfilter-dumpxml", filter.name]), new RegExp(`<uuid>${filter.uuid}</uuid>[\\s\\S]*<rule action='drop' direction='in' priority='900'`));
    vm = (await domainProvider.create(await vmInputs(filter.name))).outs;
    cleanup.push(() => domainProvider.delete(vm.uuid, vm));
    assert.match(virsh(["dumpxml", vm.name]), new RegExp(`<filterref filter='${filter.name}'/>`));
    assert.match(vm.ipAddress ?? "", /^192\.168\.150\.\d+$/, "DHCP passed the filter");
    assert.strictEqual(neighbour.pings(vm.ipAddress!), false, "the filter drops a neighbour's ping");
  });

  it("changes the rules in place: the same filter, the same running VM, and now the ping answers; a refresh sees no change", async () => {
    const process = virsh(["domid", vm.name]);
    const rules = [{ action: "accept" as const, direction: "in" as const, protocol: "icmp" as const, priority: 100 }, ...filter.rules];
    const news = await checked(networkFilterProvider, { ...filter, rules }, filter);
    const diff = await networkFilterProvider.diff(filter.uuid, filter, news);
    assert.deepStrictEqual(diff, { changes: true, replaces: [], deleteBeforeReplace: false });
    filter = (await networkFilterProvider.update(filter.uuid, filter, news)).outs;
    assert.strictEqual(virsh(["nwfilter-dumpxml", filter.name]).match(/<uuid>([^<]+)/)![1], filter.uuid, "the same filter");
    assert.strictEqual(virsh(["domid", vm.name]), process, "the VM was not restarted");
    assert.strictEqual(neighbour.pings(vm.ipAddress!), true, "the new rules let the ping through");
    const { props } = await networkFilterProvider.read(filter.uuid, filter);
    assert.deepStrictEqual(props.rules, rules);
    assert.strictEqual((await networkFilterProvider.diff(filter.uuid, props, news)).changes, false);
  });

  it("refuses to remove the filter while the VM's NIC uses it, then removes it after the VM", async () => {
    await assert.rejects(networkFilterProvider.delete(filter.uuid, filter), (e: Error) => {
      assert.match(e.message, new RegExp(`network filter "${filter.name}" is used by a VM's NIC.*remove the filter from their NICs first`, "s"));
      return true;
    });
    assert.match(virsh(["nwfilter-list"]), new RegExp(filter.name));
    await domainProvider.delete(vm.uuid, vm);
    await networkFilterProvider.delete(filter.uuid, filter);
    assert.doesNotMatch(virsh(["nwfilter-list"]), new RegExp(filter.name));
  });
});
