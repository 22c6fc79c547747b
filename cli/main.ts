#!/usr/bin/env node
// `pulumi-kvm` command line. Subcommands: health.
import { healthCommand } from "./health";

const USAGE = `usage: pulumi-kvm <command> [options]

commands:
  health    check libvirt hosts (or every host of a stack); see pulumi-kvm health --help
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "health":
      return healthCommand(rest);
    case undefined:
    case "-h":
    case "--help":
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      process.stderr.write(`pulumi-kvm: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
  process.stderr.write(`pulumi-kvm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
