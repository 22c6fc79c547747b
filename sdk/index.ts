// pulumi-kvm: KVM virtual machines on remote libvirt hosts over SSH.
export { Image } from "./image";
export type { ImageArgs, ImageSourceArgs } from "./image";
export { Volume } from "./volume";
export type { VolumeArgs } from "./volume";
export { Domain } from "./domain";
export type { DomainArgs, DiskArgs, NetworkInterfaceArgs, CloudInitArgs, WaitForIpArgs, InterfaceState } from "./domain";
export type { HostArgs } from "./host";
