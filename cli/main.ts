#!/usr/bin/env node
// `pulumi-kvm` command line. Subcommands: health, console, snapshot, discover.
import { consoleCommand } from "./console";
import { discoverCommand } from "./discover";
import { healthCommand } from "./health";
import { snapshotCommand } from "./snapshot";

const USAGE = `pulumi-kvm ${version()}: KVM virtual machines on libvirt hosts over SSH, from Pulumi.

usage: pulumi-kvm <command> [options]

commands:
  health    check libvirt hosts, or every host and resource of a stack
            (pulumi-kvm health --help)
  console   print what a VM's serial console shows, read only
            (pulumi-kvm console --help)
  snapshot  list a VM's snapshots, or revert it to one
            (pulumi-kvm snapshot --help)
  discover  write Pulumi's import file for what a host holds
            (pulumi-kvm discover --help)

options:
  -h, --help     this help
  -v, --version  the installed version

The resources (Image, Volume, Domain, StoragePool, Network, Snapshot) are used from a Pulumi program:
  import * as kvm from "pulumi-kvm";
Documentation: the docs/ folder of the package (connection, resources, health,
troubleshooting).
`;

function version(): string {
  return (require("../../package.json") as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "health":
      return healthCommand(rest);
    case "console":
      return consoleCommand(rest);
    case "snapshot":
      return snapshotCommand(rest);
    case "discover":
      return discoverCommand(rest, version());
    case "-v":
    case "--version":
      process.stdout.write(`${version()}\n`);
      return 0;
    case "-h":
    case "--help":
      process.stdout.write(USAGE);
      return 0;
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`pulumi-kvm: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

/** The command itself failed (a stack it cannot read, a crash): not a verdict on any host. */
const TOOL_ERROR = 3;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`pulumi-kvm: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(TOOL_ERROR);
  },
);
