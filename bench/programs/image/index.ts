// One Image from a local file (config `path`) or an http URL (config `url`), on the
// host the stack config names: what `npm run bench` times through `pulumi up`.
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";

const config = new pulumi.Config();
const host: kvm.HostArgs = {
  address: config.require("address"),
  port: config.requireNumber("port"),
  user: config.require("user"),
  privateKeyPath: config.require("key"),
  knownHostsPath: config.require("knownHosts"),
};
const url = config.get("url");
const image = new kvm.Image(config.require("name"), {
  host,
  source: url ? { url, sha256: config.get("sha256") } : { path: config.require("path") },
});

export const sha256 = image.sha256;
