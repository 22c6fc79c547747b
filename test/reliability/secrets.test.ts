// Secrets through a real run: the quickstart at PULUMI_KVM_LOG=2 with a passphrase-
// protected inline key and user data carrying a marker. Neither the marker, the key
// nor the passphrase may appear in any log line, error message, or unencrypted in the
// exported stack state.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { e2eStack } from "../support/pulumi";
import { labEnv, quickstartLabConfig, repoRoot } from "../support/lab";
import { tempDir } from "../support/tmp";

describe("secrets", function () {
  this.timeout(600_000);

  it("never shows the key, its passphrase or the user data", async () => {
    const lab = labEnv();
    const tmp = tempDir("secrets-");
    const marker = `MARKER-${crypto.randomBytes(8).toString("hex")}`;
    const passphrase = `pass-${crypto.randomBytes(8).toString("hex")}`;
    const keyFile = path.join(tmp, "id_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", passphrase, "-C", "secrets-test", "-f", keyFile]);
    const key = fs.readFileSync(keyFile, "utf8");
    const keyBody = key.split("\n")[2]; // a line of the key's base64 body
    const authorized = fs.readFileSync(path.join(path.dirname(lab.key), "authorized_keys"), "utf8");
    fs.appendFileSync(path.join(path.dirname(lab.key), "authorized_keys"), fs.readFileSync(keyFile + ".pub"));
    const e = await e2eStack(repoRoot, `secrets${process.pid}`, { ...quickstartLabConfig(), prefix: `sec${process.pid}` }, { PULUMI_KVM_LOG: "2" });
    const output: string[] = [];
    const collect = (s: string) => output.push(s);
    const leaks = (text: string) => [marker, passphrase, keyBody].filter((s) => text.includes(s));
    try {
      await e.stack.setConfig("privateKey", { value: key, secret: true });
      await e.stack.setConfig("passphrase", { value: passphrase, secret: true });
      await e.stack.setConfig("userData", { value: `#cloud-config\n# ${marker}\n`, secret: true });
      const up = await e.stack.up({ onOutput: collect });
      output.push(up.stdout, up.stderr);
      assert.match(up.outputs.ip.value, /^192\.168\.150\./);
      const all = output.join("\n");
      assert.match(all, /rpc=virDomainDefineXMLFlags xml=/, "level 2 logging was on");
      assert.match(all, /rpc=virStorageVolUpload/, "uploads are logged, their bodies are not");
      assert.deepStrictEqual(leaks(all), [], "nothing secret in the run's output");
      // the state as stored (the Automation API's exportStack decrypts: ask the CLI directly)
      const state = execFileSync("pulumi", ["stack", "export", "--stack", e.stack.name, "--cwd", repoRoot], {
        env: { ...process.env, ...e.env },
        encoding: "utf8",
      });
      assert.deepStrictEqual(leaks(state), [], "nothing secret unencrypted in the state");
      assert.ok(state.includes("ciphertext"), "the secrets are there, encrypted");
      // an error about the key must not quote it either
      await e.stack.setConfig("passphrase", { value: `${passphrase}-wrong`, secret: true });
      const failed = await e.stack.preview({ onOutput: collect }).then(
        () => undefined,
        (err: Error) => err,
      );
      assert.ok(failed, "a wrong passphrase fails the preview");
      assert.match(failed.message, /passphrase does not decrypt/);
      assert.deepStrictEqual(leaks(failed.message), []);
      await e.stack.setConfig("passphrase", { value: passphrase, secret: true });
      const down = await e.stack.destroy({ onOutput: collect });
      assert.deepStrictEqual(leaks([...output, down.stdout, down.stderr].join("\n")), []);
    } finally {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
      fs.writeFileSync(path.join(path.dirname(lab.key), "authorized_keys"), authorized);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
