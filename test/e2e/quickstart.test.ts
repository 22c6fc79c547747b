// The quickstart with the real Pulumi CLI, as Pulumi's own ProgramTest does it:
// preview, up, preview (no changes), refresh (no changes), an in-place update, destroy.
// The programs run against the package installed from its tarball (test/support/package).
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { diagnostics, e2eStack, E2eStack, probesPerHost } from "../support/pulumi";
import { runCli } from "../support/cli";
import { acceptedLogins } from "../support/hosts";
import { fleetLabConfig, labEnv, quickstartLabConfig } from "../support/lab";
import { installedCli, isFirstLeg, itOnFirstLeg, legEnv, legProject, programIn, testLegs, programEnv } from "../support/package";
import { knownHostsFor, startSshd } from "../support/sshd";
import { tempDir } from "../support/tmp";
import { domainNames, mine, virsh, volumeNames, withForeignDomain } from "../support/virsh";
import { assertDomainXmlValid } from "../support/xml-schema";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));

for (const leg of testLegs()) {
  const tag = `${process.pid}${leg.name}`;

  /** The quickstart as a user's checkout has it: the root Pulumi.yaml and examples/quickstart, pointed at the lab by stack config. */
  function quickstartProgram(): string {
    return programIn(legProject(leg), "quickstart", {
      "Pulumi.yaml": "Pulumi.yaml",
      "examples/quickstart/index.ts": "examples/quickstart/index.ts",
    });
  }

  const firstLeg = (title: string, fn: Mocha.AsyncFunc) => itOnFirstLeg(leg, title, fn);

  describe(`e2e [${leg.name}]: the quickstart with the real Pulumi CLI`, function () {
    this.timeout(600_000);
    let e: E2eStack;
    let volumesBefore: string[];
    let domainsBefore: string[];
    let ip: string;
    // its own object names: passes beside a running quickstart and another run's leftovers
    const prefix = `qs${tag}`;
    let program: string;

    before(async () => {
      const lab = labEnv();
      volumesBefore = mine(volumeNames(lab));
      domainsBefore = mine(domainNames());
      program = quickstartProgram();
      e = await e2eStack(program, `e2e${tag}`, { ...quickstartLabConfig(), prefix }, legEnv(legProject(leg)));
    });
    after(async () => {
      await e?.stack.destroy().catch(() => undefined);
      await e?.remove();
    });

    it("previews the creation of image, volume and VM, each shown by its kind", async () => {
      const p = await e.stack.preview();
      assert.deepStrictEqual(only(p.changeSummary), { create: 4 });
      for (const kind of ["Image", "Volume", "Domain"]) {
        assert.match(p.stdout, new RegExp(`\\+\\s+pulumi-nodejs:dynamic/kvm:${kind}\\s+${prefix}-`), `the preview names the ${kind}`);
      }
      assert.doesNotMatch(p.stdout, /pulumi-nodejs:dynamic:Resource/);
    });

    it("brings the VM up and outputs its IP", async () => {
      const up = await e.stack.up();
      ip = up.outputs.ip.value;
      assert.match(ip, /^192\.168\.150\.\d+$/);
      assert.strictEqual(up.summary.result, "succeeded");
    });

    it("previews no changes after up", async () => {
      assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 4 });
    });

    it("refreshes with no changes", async () => {
      const r = await e.stack.refresh();
      assert.deepStrictEqual(only(r.summary.resourceChanges ?? {}), { same: 4 });
      assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 4 });
    });

    it("previews a vcpu change as an update, not a replace, and keeps the IP", async () => {
      await e.stack.setConfig("vcpu", { value: "2" });
      assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { same: 3, update: 1 });
      const up = await e.stack.up();
      assert.strictEqual(up.outputs.ip.value, ip);
      assert.match(virsh(["dominfo", `${prefix}-vm`]), /CPU\(s\):\s+2/);
      assertDomainXmlValid(`${prefix}-vm`);
    });

    // the commands read the stack and speak to the host as the provider does, whatever the Node and SDK (isFirstLeg);
    // the later leg's install runs the command (package e2e)
    firstLeg("pulumi-kvm console shows the VM's boot output as it restarts, read only, until it is stopped", async () => {
      const installed = { node: legProject(leg).node, cli: installedCli(legProject(leg)) };
      let reset = false;
      const read = await runCli(["console", `${prefix}-vm`, "--stack", e.stack.name, "--cwd", program, "--follow"], {
        env: e.env,
        installed,
        // restarted once the console is read: its boot is what it shows
        onStderr: (text) => {
          if (!reset && /reading domain/.test(text)) {
            reset = true;
            virsh(["reset", `${prefix}-vm`]);
          }
        },
        // the whole line: a pipe may deliver it in pieces
        untilStdout: /kvmlab-guest: .*\n[\s\S]*udhcpc: lease of [\d.]+ obtained/,
        killAfterMs: 300_000,
      });
      assert.ok(reset, read.stderr);
      assert.strictEqual(read.code, 0, read.stderr);
      assert.match(read.stderr, new RegExp(`reading domain ${prefix}-vm on root@127\\.0\\.0\\.1:\\d+ \\(read only; Ctrl-C to stop\\)`));
      assert.match(read.stdout, /udhcpc: lease of 192\.168\.150\.\d+ obtained/, `the boot's lines, up to its DHCP lease:\n${read.stdout}`);
      assert.ok(!read.stdout.includes("\u001b"), "no escape sequences reach the terminal");
    });

    firstLeg("pulumi-kvm health --stack reports the stack's host and resources, and a VM destroyed out of band as drift", async () => {
      const args = ["health", "--stack", e.stack.name, "--cwd", program, "--json"];
      const installed = { node: legProject(leg).node, cli: installedCli(legProject(leg)) };
      const ok = await runCli(args, { env: e.env, installed });
      assert.strictEqual(ok.code, 0, ok.stdout + ok.stderr);
      const report = JSON.parse(ok.stdout);
      assert.deepStrictEqual(
        report.hosts.map((h: any) => [h.host, h.ok]),
        [[`root@127.0.0.1:${labEnv().port}`, true]],
      );
      assert.deepStrictEqual(report.resources.map((r: any) => [r.name, r.kind, r.status]).sort(), [
        [`${prefix}-disk`, "Volume", "ok"],
        [`${prefix}-image`, "Image", "ok"],
        [`${prefix}-vm`, "Domain", "ok"],
      ]);
      // the next check dials the host the last one found while `pulumi stack export` runs
      const again = await runCli(args, { env: { ...e.env, PULUMI_KVM_LOG: "1" }, installed });
      assert.strictEqual(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stderr, new RegExp(`host=root@127\\.0\\.0\\.1:${labEnv().port} dialled ahead of its first check`));
      // paused, then shut off behind Pulumi's back: each with libvirt's reason
      const vmReport = async () => {
        const r = await runCli(args, { env: e.env, installed });
        return { code: r.code, vm: JSON.parse(r.stdout).resources.find((x: any) => x.name === `${prefix}-vm`) };
      };
      virsh(["suspend", `${prefix}-vm`]);
      const paused = await vmReport();
      virsh(["resume", `${prefix}-vm`]);
      assert.deepStrictEqual(paused, { code: 1, vm: { ...paused.vm, status: "drift", detail: "recorded running, host says paused (user)" } });
      virsh(["destroy", `${prefix}-vm`]);
      const drift = await vmReport();
      assert.deepStrictEqual(drift, { code: 1, vm: { ...drift.vm, status: "drift", detail: "recorded running, host says shut off (destroyed)" } });
      const human = await runCli(args.slice(0, -1), { env: e.env, installed });
      assert.match(
        human.stdout,
        new RegExp(`${prefix}-vm\\s+Domain\\s+root@127\\.0\\.0\\.1:\\d+\\s+drift\\s+recorded running, host says shut off \\(destroyed\\)`),
      );
      const offConsole = await runCli(["console", `${prefix}-vm`, "--stack", e.stack.name, "--cwd", program], { env: e.env, installed });
      assert.deepStrictEqual(
        [offConsole.code, offConsole.stderr.trim()],
        [1, `pulumi-kvm console: domain ${prefix}-vm on root@127.0.0.1:${labEnv().port} is shut off (destroyed): its console shows nothing`],
      );
      // the stack's VM gone and someone else's under its name: never the commands' target
      const vmName = `${prefix}-vm`;
      const uuid = virsh(["domuuid", vmName]);
      const definition = path.join(tempDir("stack-vm-"), "vm.xml");
      fs.writeFileSync(definition, virsh(["dumpxml", "--inactive", vmName]));
      virsh(["undefine", vmName]);
      try {
        await withForeignDomain(vmName, async () => {
          const host = `root@127.0.0.1:${labEnv().port}`;
          const notOurs = `the domain "${vmName}" stack "${e.stack.name}" made (UUID ${uuid}) is not on ${host}; a domain of that name made by anyone else is left alone`;
          const onStack = ["--stack", e.stack.name, "--cwd", program];
          const read = await runCli(["console", vmName, ...onStack], { env: e.env, installed });
          assert.deepStrictEqual([read.code, read.stderr.trim()], [1, `pulumi-kvm console: ${notOurs}`]);
          const list = await runCli(["snapshot", "list", vmName, ...onStack], { env: e.env, installed });
          assert.deepStrictEqual([list.code, list.stderr.trim()], [1, `pulumi-kvm snapshot list: ${notOurs}`]);
          const health = await vmReport();
          assert.deepStrictEqual([health.code, health.vm.status], [1, "missing"], JSON.stringify(health.vm));
        });
      } finally {
        virsh(["define", definition]);
      }
      // the command line's login options go over the stack's record (a CI job's own key and socket)
      const overridden = await runCli([...args, "--identity", labEnv().key, "--socket", "/run/no-such-libvirt-sock"], { env: e.env, installed });
      assert.strictEqual(overridden.code, 1, overridden.stdout + overridden.stderr);
      assert.strictEqual(JSON.parse(overridden.stdout).hosts[0].stage, "libvirt-connect");
      // a stack it cannot read is the command's failure, not a verdict on a host
      const unreadable = await runCli(["health", "--stack", `no-such-stack-${tag}`, "--cwd", program], { env: e.env, installed });
      assert.strictEqual(unreadable.code, 3, unreadable.stdout + unreadable.stderr);
      assert.match(unreadable.stderr, /cannot read stack "no-such-stack-/);
    });

    it("destroys everything it made on the host", async () => {
      await e.stack.destroy();
      assert.deepStrictEqual(mine(volumeNames(labEnv())), volumesBefore);
      assert.deepStrictEqual(mine(domainNames()), domainsBefore);
    });
  });

  if (isFirstLeg(leg))
    describe(`e2e [${leg.name}]: previews of broken hosts name the reason`, function () {
      this.timeout(300_000);

      it("warns, naming the host and the tcp stage, when sshd is stopped, and the preview goes on: a host that is down fails only its own resources", async () => {
        const lab = labEnv();
        const sshd = await startSshd(lab, {});
        await sshd.stop();
        const e = await e2eStack(
          quickstartProgram(),
          `e2etcp${tag}`,
          { ...quickstartLabConfig(), port: String(sshd.port), prefix: `tcp${tag}` },
          programEnv(legProject(leg)),
        );
        try {
          const p = await e.stack.preview();
          assert.deepStrictEqual(only(p.changeSummary), { create: 4 });
          const warning = new RegExp(`root@127\\.0\\.0\\.1:${sshd.port} did not answer \\(.*ECONNREFUSED.*\\[stage: tcp\\]\\)`);
          assert.match(p.stdout + p.stderr, warning);
        } finally {
          await e.remove();
        }
      });

      it("names the pool when it is stopped", async () => {
        const lab = labEnv();
        const name = `e2epool${tag}`;
        virsh(["pool-define-as", name, "dir", "--target", path.join(lab.poolDir, "..", name)]);
        let e: E2eStack | undefined;
        try {
          e = await e2eStack(quickstartProgram(), `e2epool${tag}`, { ...quickstartLabConfig(), pool: name, prefix: `pl${tag}` }, programEnv(legProject(leg)));
          await assert.rejects(e.stack.preview(), (err: Error) => {
            assert.match(err.message, new RegExp(`storage pool "${name}" is inactive`));
            assert.match(err.message, /stage: pool/);
            return true;
          });
        } finally {
          virsh(["pool-undefine", name]);
          await e?.remove();
        }
      });
    });

  if (isFirstLeg(leg))
    describe(`e2e [${leg.name}]: the fleet example`, function () {
      this.timeout(300_000);

      it("previews with one SSH connection and one daemon probe per host", async () => {
        const lab = labEnv();
        // two sshd of its own in front of the lab's libvirtd, so that only this program's logins are counted
        const hosts = [await startSshd(lab, {}), await startSshd(lab, {})];
        const fleet = programIn(legProject(leg), "fleet", {
          "examples/fleet/Pulumi.yaml": "examples/fleet/Pulumi.yaml",
          "examples/fleet/index.ts": "examples/fleet/index.ts",
        });
        const ports = hosts.map((h) => h.port);
        const e = await e2eStack(
          path.join(fleet, "examples", "fleet"),
          `e2efleet${tag}`,
          { ...fleetLabConfig(), portA: String(ports[0]), portB: String(ports[1]), knownHostsPath: knownHostsFor(lab, ports, fleet), count: "6" },
          { PULUMI_KVM_LOG: "1", ...programEnv(legProject(leg)) },
        );
        try {
          const out: string[] = [];
          const p = await e.stack.preview({ onOutput: (s) => out.push(s) });
          assert.deepStrictEqual(only(p.changeSummary), { create: 1 + 2 + 6 + 6 });
          await new Promise((r) => setTimeout(r, 300));
          assert.deepStrictEqual(
            hosts.map((h) => acceptedLogins(h.log)),
            [1, 1],
          );
          const probes = probesPerHost(out.join(""));
          assert.deepStrictEqual(
            ports.map((port) => probes[`root@127.0.0.1:${port}`]),
            [1, 1],
            "the check hooks of 8 resources per host cost one probe",
          );
          for (const port of ports) {
            // the program's hosts reach the provider, which dials them before their checks come
            assert.match(diagnostics(out.join("")), new RegExp(`host=root@127\\.0\\.0\\.1:${port} dialled ahead of its first check`));
          }
        } finally {
          await e.remove();
          for (const h of hosts) await h.stop();
        }
      });
    });
}
