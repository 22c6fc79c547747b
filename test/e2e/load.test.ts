// Load: 30 resources on one host created, updated and deleted in parallel by one
// `pulumi up` each, at Pulumi's default parallelism, through the real CLI. Each run uses
// one SSH connection, never has more calls at libvirtd than its per-client limit (the
// rest queue in the provider), and never meets "pool has asynchronous jobs running".
// One leg: the provider's concurrency, not the Node/SDK pair, is under test here.
import * as assert from "assert";
import * as net from "net";
import { diagnostics, e2eStack, E2eStack } from "../support/pulumi";
import { labEnv } from "../support/lab";
import { legProject, programFiles, programIn, testLegs, programEnv } from "../support/package";
import { domainNames, mine, volumeNames } from "../support/virsh";

const leg = testLegs()[0];
const lab = labEnv();
/** libvirtd's max_client_requests, as the lab's libvirtd runs with it (the default). */
const DAEMON_LIMIT = 5;

/** What a run's log (its Diagnostics: progress lines repeat them) says of its links: connections made, the most calls at libvirtd at once. */
function links(output: string): { connections: number; peak: number; queued: number; calls: number } {
  const lines = diagnostics(output)
    .split("\n")
    .filter((l) => l.includes("pulumi-kvm host="));
  const numbers = (field: string) => lines.map((l) => Number(new RegExp(`\\b${field}=(\\d+)`).exec(l)?.[1] ?? 0));
  return {
    connections: lines.filter((l) => / connected$/.test(l.trim())).length,
    peak: Math.max(0, ...numbers("peak")),
    queued: Math.max(0, ...numbers("queued")),
    calls: lines.filter((l) => / rpc=/.test(l)).length,
  };
}

describe(`e2e [${leg.name}]: 30 resources on one host in one pulumi up`, function () {
  this.timeout(1_200_000);
  const prefix = `ld${process.pid}`;
  let e: E2eStack | undefined;
  let volumesBefore: string[];
  let domainsBefore: string[];
  const figures: string[] = [];

  before(async () => {
    volumesBefore = mine(volumeNames(lab));
    domainsBefore = mine(domainNames());
    const dir = programIn(legProject(leg), "load", programFiles("load"));
    e = await e2eStack(dir, prefix, { prefix }, { ...programEnv(legProject(leg)), PULUMI_KVM_LOG: "1" });
  });
  after(async () => {
    if (e) {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
    }
    if (figures.length) console.log(`      ${figures.join("\n      ")}`);
  });

  /** One run's checks: it succeeded with one connection, within the daemon's limit, and no pool-job refusal. */
  function checkRun(what: string, output: string): void {
    const l = links(output);
    figures.push(
      `${what}: ${l.calls} libvirt calls over ${l.connections} connection(s), at most ${l.peak} at libvirtd at once, ${l.queued} queued in the provider`,
    );
    assert.strictEqual(l.connections, 1, `${what}: one SSH connection for the whole run`);
    assert.ok(l.peak >= 1 && l.peak <= DAEMON_LIMIT, `${what}: at most ${DAEMON_LIMIT} calls at libvirtd at once, saw ${l.peak}`);
    assert.doesNotMatch(output, /asynchronous jobs running/);
  }

  it("creates all 30 in parallel, updates 29 of them in place, previews no change, and destroys them all", async () => {
    const up = await e!.stack.up();
    assert.strictEqual(up.summary.result, "succeeded");
    assert.deepStrictEqual(up.summary.resourceChanges, { create: 31 }, "30 resources and the stack");
    checkRun("create", up.stdout);
    const ours = () => ({
      volumes: volumeNames(lab).filter((v) => v.startsWith(`${prefix}-`)).length,
      domains: domainNames().filter((d) => d.startsWith(`${prefix}-`)).length,
    });
    assert.deepStrictEqual(ours(), { volumes: 1 + 10 + 10 + 9, domains: 10 }, "the image, 10 disks, 10 seeds, 9 blanks; 10 VMs");
    assert.deepStrictEqual(up.outputs.vms.value, Array(10).fill("shutoff"));

    await e!.stack.setConfig("grown", { value: "true" });
    const grown = await e!.stack.up();
    assert.strictEqual(grown.summary.result, "succeeded");
    assert.deepStrictEqual(grown.summary.resourceChanges, { update: 29, same: 2 }, "every volume and VM updated in place, the image kept");
    checkRun("update", grown.stdout);
    assert.deepStrictEqual(grown.outputs.blanks.value, Array(9).fill(24 << 20));
    assert.deepStrictEqual(grown.outputs.vms.value, Array(10).fill("shutoff"));

    const preview = await e!.stack.preview();
    assert.deepStrictEqual(preview.changeSummary, { same: 31 });

    const down = await e!.stack.destroy();
    assert.strictEqual(down.summary.result, "succeeded");
    checkRun("delete", down.stdout);
    assert.deepStrictEqual(mine(volumeNames(lab)), volumesBefore);
    assert.deepStrictEqual(mine(domainNames()), domainsBefore);
  });
});

describe(`e2e [${leg.name}]: a fleet with one dead host`, function () {
  this.timeout(600_000);
  const prefix = `dh${process.pid}`;
  let e: E2eStack | undefined;
  let dead: net.Server;
  const held: net.Socket[] = [];

  before(async () => {
    // takes the connection and never answers: the SSH handshake waits for its banner
    dead = net.createServer((s) => held.push(s));
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const dir = programIn(legProject(leg), "dead-host", programFiles("dead-host"));
    e = await e2eStack(dir, prefix, { prefix, deadPort: String((dead.address() as net.AddressInfo).port) }, programEnv(legProject(leg)));
  });
  after(async () => {
    if (e) {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
    }
    for (const s of held) s.destroy();
    dead.close();
  });

  it("up: the check warns naming the dead host and goes on; its resources fail naming it, the live hosts' are all made; destroy removes them", async () => {
    const deadHost = `root@127.0.0.1:${(dead.address() as net.AddressInfo).port}`;
    const out: string[] = [];
    await assert.rejects(e!.stack.up({ onOutput: (s) => out.push(s) }));
    const output = out.join("");
    assert.match(output, new RegExp(`${deadHost} did not answer`), "the check's warning");
    const failed = [...diagnostics(output).matchAll(/kvm:Volume \(([^)]+)\):\n\s+error: ([^\n]+)/g)].map((m) => ({ name: m[1], error: m[2] }));
    assert.deepStrictEqual(
      failed.map((f) => f.name).sort(),
      ["dead-0", "dead-1", "dead-2"].map((s) => `${prefix}-${s}`),
      "only the dead host's resources fail",
    );
    for (const f of failed) assert.ok(f.error.includes(deadHost), `names the host: ${f.error}`);
    const made = volumeNames(lab).filter((v) => v.startsWith(`${prefix}-`));
    assert.deepStrictEqual(
      made,
      ["a-0", "a-1", "a-2", "b-0", "b-1", "b-2"].map((s) => `${prefix}-${s}`),
    );
    await e!.stack.destroy();
    assert.deepStrictEqual(
      volumeNames(lab).filter((v) => v.startsWith(`${prefix}-`)),
      [],
    );
  });
});
