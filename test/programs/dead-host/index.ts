// Blank volumes on a fleet of three hosts, one of them dead: the lab's two sshd and a port
// that takes connections and never answers.
//   prefix     names of every object
//   deadPort   the dead host's port on 127.0.0.1
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const hosts = { a: labHost(), b: labHost({ port: lab.KVM_LAB_PORT2 }), dead: labHost({ port: config.require("deadPort") }) };

export const volumes = Object.entries(hosts).flatMap(([id, host]) =>
  Array.from({ length: 3 }, (_, i) => new kvm.Volume(`${prefix}-${id}-${i}`, { host, capacity: 1 << 20 }).name),
);
