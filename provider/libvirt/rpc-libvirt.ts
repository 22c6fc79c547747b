// The seam over the RPC client: each method is one procedure call.
import { RpcClient } from "../rpc/client";
import { downloadVolume, uploadVolume } from "../rpc/stream";
import { Impact, Libvirt, MetadataType, PoolInfo, VolumeInfo } from "./api";
import type { DomainRef, NetworkRef, PoolRef, VolumeRef, UploadChunk, UploadOptions, DownloadOptions } from "./api";

type S = AbortSignal | undefined;

export class RpcLibvirt implements Libvirt {
  constructor(readonly client: RpcClient) {}

  async libVersion(signal?: S) { return (await this.client.call("connectGetLibVersion", undefined, signal)).libVer; }
  async hostname(signal?: S) { return (await this.client.call("connectGetHostname", undefined, signal)).hostname; }

  async lookupPool(name: string, signal?: S) { return (await this.client.call("storagePoolLookupByName", { name }, signal)).pool; }
  async poolInfo(pool: PoolRef, signal?: S): Promise<PoolInfo> { return this.client.call("storagePoolGetInfo", { pool }, signal); }
  async poolXml(pool: PoolRef, signal?: S) { return (await this.client.call("storagePoolGetXmlDesc", { pool, flags: 0 }, signal)).xml; }
  async listVolumes(pool: PoolRef, signal?: S) {
    return (await this.client.call("storagePoolListAllVolumes", { pool, needResults: 1, flags: 0 }, signal)).vols;
  }

  async lookupVolume(pool: PoolRef, name: string, signal?: S) { return (await this.client.call("storageVolLookupByName", { pool, name }, signal)).vol; }
  async volumeInfo(vol: VolumeRef, signal?: S): Promise<VolumeInfo> { return this.client.call("storageVolGetInfo", { vol }, signal); }
  async volumeXml(vol: VolumeRef, signal?: S) { return (await this.client.call("storageVolGetXmlDesc", { vol, flags: 0 }, signal)).xml; }
  async volumePath(vol: VolumeRef, signal?: S) { return (await this.client.call("storageVolGetPath", { vol }, signal)).name; }
  async createVolume(pool: PoolRef, xml: string, signal?: S) { return (await this.client.call("storageVolCreateXml", { pool, xml, flags: 0 }, signal)).vol; }
  async deleteVolume(vol: VolumeRef, signal?: S) { await this.client.call("storageVolDelete", { vol, flags: 0 }, signal); }
  async resizeVolume(vol: VolumeRef, capacity: bigint, flags: number, signal?: S) {
    await this.client.call("storageVolResize", { vol, capacity, flags }, signal);
  }
  uploadVolume(vol: VolumeRef, source: AsyncIterable<UploadChunk>, opts?: UploadOptions) { return uploadVolume(this.client, vol, source, opts); }
  downloadVolume(vol: VolumeRef, opts?: DownloadOptions) { return downloadVolume(this.client, vol, opts); }

  async listDomains(signal?: S) { return (await this.client.call("connectListAllDomains", { needResults: 1, flags: 0 }, signal)).domains; }
  async lookupDomain(name: string, signal?: S) { return (await this.client.call("domainLookupByName", { name }, signal)).dom; }
  async lookupDomainByUuid(uuid: Buffer, signal?: S) { return (await this.client.call("domainLookupByUuid", { uuid }, signal)).dom; }
  async domainXml(dom: DomainRef, flags: number, signal?: S) { return (await this.client.call("domainGetXmlDesc", { dom, flags }, signal)).xml; }
  async defineDomain(xml: string, signal?: S) { return (await this.client.call("domainDefineXmlFlags", { xml, flags: 0 }, signal)).dom; }
  async undefineDomain(dom: DomainRef, flags: number, signal?: S) { await this.client.call("domainUndefineFlags", { dom, flags }, signal); }
  async startDomain(dom: DomainRef, signal?: S) { return (await this.client.call("domainCreateWithFlags", { dom, flags: 0 }, signal)).dom; }
  async shutdownDomain(dom: DomainRef, signal?: S) { await this.client.call("domainShutdown", { dom }, signal); }
  async destroyDomain(dom: DomainRef, signal?: S) { await this.client.call("domainDestroy", { dom }, signal); }
  async domainState(dom: DomainRef, signal?: S) { return this.client.call("domainGetState", { dom, flags: 0 }, signal); }
  async domainAutostart(dom: DomainRef, signal?: S) { return (await this.client.call("domainGetAutostart", { dom }, signal)).autostart === 1; }
  async setDomainAutostart(dom: DomainRef, autostart: boolean, signal?: S) {
    await this.client.call("domainSetAutostart", { dom, autostart: autostart ? 1 : 0 }, signal);
  }
  async domainMetadata(dom: DomainRef, uri: string, signal?: S) {
    return (await this.client.call("domainGetMetadata", { dom, type: MetadataType.ELEMENT, uri, flags: Impact.CURRENT }, signal)).metadata;
  }
  async interfaceAddresses(dom: DomainRef, source: number, signal?: S) {
    return (await this.client.call("domainInterfaceAddresses", { dom, source, flags: 0 }, signal)).ifaces;
  }

  async lookupNetwork(name: string, signal?: S) { return (await this.client.call("networkLookupByName", { name }, signal)).net; }
  async networkIsActive(net: NetworkRef, signal?: S) { return (await this.client.call("networkIsActive", { net }, signal)).active === 1; }
  async dhcpLeases(net: NetworkRef, mac: string | null, signal?: S) {
    return (await this.client.call("networkGetDhcpLeases", { net, mac, needResults: 1, flags: 0 }, signal)).leases;
  }
}
