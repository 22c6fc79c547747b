// A consumer's program, type-checked (not run) under each module resolution with
// skipLibCheck off: the package's declarations, both entry points, and inputs as
// users pass them (Outputs of arrays).
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { classify } from "pulumi-kvm/provider";

const host: kvm.HostArgs = { address: "hv1.example.com", user: "root", privateKeyPath: "~/.ssh/id_ed25519" };
const image = new kvm.Image("base", { host, source: { path: "./base.qcow2" } });
const disk = new kvm.Volume("disk", { host, baseImage: image, capacity: "10GiB" });
const disks: pulumi.Output<kvm.DiskArgs[]> = pulumi
  .all([disk.name, disk.pool, disk.format, disk.backing])
  .apply(([name, pool, format, backing]) => [{ volume: name, pool, format, backing }]);
const networkInterfaces = pulumi.output(["default"]).apply((nets) => nets.map((network): kvm.NetworkInterfaceArgs => ({ network })));
const vm = new kvm.Domain("vm", { host, disks, networkInterfaces, cloudInit: { hostname: "vm" }, waitForIp: true });

export const ip: pulumi.Output<string | undefined> = vm.ipAddress;
export const errorClass: string = classify(new Error("x")).errorClass;
