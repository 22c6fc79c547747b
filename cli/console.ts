// `pulumi-kvm console DOMAIN`: prints what a VM's serial console shows, read through
// libvirt over the host's SSH link. Read only: nothing is ever sent to the guest.
import { parseArgs } from "util";
import { describeState, isLibvirtError } from "../provider/libvirt/api";
import { isRunningState } from "../provider/kinds/domain/power";
import { HostPool } from "../provider/pool/host-pool";
import { hostLabel } from "../provider/resources/host-inputs";
import { printable } from "../provider/kinds/domain/console";
import { parseDuration } from "../provider/units";
import { domainTarget, TARGET_OPTIONS, TARGET_USAGE } from "./domain-target";
import { planOrExit, UsageError } from "./usage";

export const CONSOLE_USAGE = `Print what a VM's serial console shows, read only (nothing is sent to the guest).
The console keeps no history: it shows what the guest prints from the moment it is
read. What a failed pulumi up saw of it is in that run's error.

usage: pulumi-kvm console DOMAIN (--host SPEC | --stack NAME) [options]

${TARGET_USAGE}

what to print:
  --follow            keep printing until Ctrl-C (or until the VM stops)
  --wait DUR          without --follow: how long to read (default: 5s)
  -h, --help          this help

examples:
  pulumi-kvm console web --stack prod --cwd ./infra --follow
  pulumi-kvm console web --host root@hv1 --wait 30s

exit codes: 0 read, 1 the domain is not running or its console is held by another
client, 2 usage error, 3 the command failed (a host or stack it cannot reach)
`;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...TARGET_OPTIONS, follow: { type: "boolean" }, wait: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) throw new UsageError("");
  if (positionals.length !== 1) throw new UsageError("name one domain");
  const wait = parseDuration(values.wait ?? "5s");
  if ("error" in wait) throw new UsageError(`--wait: ${wait.error}`);
  return { domain: positionals[0], follow: !!values.follow, waitMs: wait.ms, target: domainTarget(values) };
}

export async function consoleCommand(argv: string[]): Promise<number> {
  const plan = planOrExit("console", CONSOLE_USAGE, () => parse(argv));
  if (typeof plan === "number") return plan;
  const { host, find, missing } = await plan.target(plan.domain);
  const pool = new HostPool();
  try {
    return await pool.run(host, async (lv) => {
      const dom = await find(lv);
      const state = await lv.domainState(dom);
      if (!isRunningState(state.state)) {
        process.stderr.write(`pulumi-kvm console: domain ${plan.domain} on ${hostLabel(host)} is ${describeState(state)}: its console shows nothing\n`);
        return 1;
      }
      const stream = await lv.openConsole(dom, (chunk) => process.stdout.write(printable(chunk.toString("utf8"))));
      process.stderr.write(
        `pulumi-kvm console: reading domain ${plan.domain} on ${hostLabel(host)} (read only; ${plan.follow ? "Ctrl-C to stop" : `for ${plan.waitMs / 1000} s`})\n`,
      );
      const stop = new Promise<void>((resolve) => {
        const timer = plan.follow ? undefined : setTimeout(resolve, plan.waitMs);
        for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
        void stream.ended.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await stop;
      stream.close();
      const err = await stream.ended;
      if (err) process.stderr.write(`\npulumi-kvm console: the console ended: ${err.message}\n`);
      return 0;
    });
  } catch (err) {
    if (isLibvirtError(err, "NO_DOMAIN")) {
      process.stderr.write(`pulumi-kvm console: ${missing}\n`);
      return 1;
    }
    if (isLibvirtError(err, "OPERATION_FAILED")) {
      process.stderr.write(
        `pulumi-kvm console: domain ${plan.domain}: ${err.message} (another client reads it: a pulumi up waiting for the VM, or virsh console; try again when it is done)\n`,
      );
      return 1;
    }
    throw err;
  } finally {
    await pool.closeAll();
  }
}
