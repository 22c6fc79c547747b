// A VM that moves between the lab's two hypervisors with a config switch: its Image and disk
// are made on the new host first, the VM moves there live, then the old ones go.
//   prefix  names of every object
//   onB     "true": everything on hypervisor B
//   running "false": the VM shut off
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const host = config.getBoolean("onB")
  ? { ...labHost({ port: lab.KVM_LAB_PORT_B }), socketPath: lab.KVM_LAB_SOCKET_B, migrationAddress: lab.KVM_LAB_MIGRATION_ADDRESS_B }
  : { ...labHost(), migrationAddress: lab.KVM_LAB_MIGRATION_ADDRESS };

const running = config.getBoolean("running") ?? true;

const image = new kvm.Image(`${prefix}-image`, { host, source: { path: lab.KVM_LAB_IMAGE } });
const disk = new kvm.Volume(`${prefix}-disk`, { host, baseImage: image });
const vm = new kvm.Domain(`${prefix}-vm`, {
  host,
  type: "qemu",
  memory: "128MiB",
  disks: [{ volume: disk }],
  networkInterfaces: [{ network: lab.KVM_LAB_NETWORK }],
  cloudInit: { hostname: `${prefix}-vm` },
  running,
  waitForIp: running ? { timeout: "3m" } : undefined,
});

export const ip = vm.ipAddress;
export const uuid = vm.uuid;
