// A create in a process of its own, for a test to kill with SIGKILL at a chosen moment
// (as an OOM killer or a CI timeout would): node create-child.js KIND INPUTS_JSON. With
// PULUMI_KVM_LOG=1 every libvirt call is logged to stderr once it returned.
import { imageProvider } from "../../provider/kinds/image/lifecycle";
import { networkProvider } from "../../provider/kinds/network/lifecycle";
import { storagePoolProvider } from "../../provider/kinds/storage-pool/lifecycle";
import { volumeProvider } from "../../provider/kinds/volume/lifecycle";

const providers = { image: imageProvider, network: networkProvider, pool: storagePoolProvider, volume: volumeProvider } as const;

async function main(): Promise<void> {
  const [kind, json] = process.argv.slice(2) as [keyof typeof providers, string];
  const provider = providers[kind] as {
    check(o: unknown, n: unknown): Promise<{ inputs: unknown; failures: unknown[] }>;
    create(i: unknown): Promise<unknown>;
  };
  const { inputs, failures } = await provider.check(undefined, JSON.parse(json));
  if (failures.length) throw new Error(JSON.stringify(failures));
  await provider.create(inputs);
  process.stdout.write("created\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
