// Key types and the ssh-agent against the lab's sshd: ed25519 is the lab's own key;
// here rsa (the lab's OpenSSH refuses SHA-1 ssh-rsa signatures, so a login proves
// rsa-sha2), ecdsa, an inline key, and an agent holding the key.
import * as assert from "assert";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { HostPool } from "../../provider/pool/host-pool";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { tempDir } from "../support/tmp";

describe("SSH authentication", function () {
  this.timeout(60_000);
  const tmp = tempDir("auth-");
  let authorized = "";
  let authorizedFile = "";
  let agentPid: number | undefined;
  const pool = new HostPool();

  let made = 0;
  const keygen = (type: string, bits?: string) => {
    const file = path.join(tmp, `id_${type}_${++made}`);
    execFileSync("ssh-keygen", ["-q", "-t", type, ...(bits ? ["-b", bits] : []), "-N", "", "-f", file]);
    fs.appendFileSync(authorizedFile, fs.readFileSync(file + ".pub"));
    return file;
  };

  before(() => {
    authorizedFile = path.join(path.dirname(labEnv().key), "authorized_keys");
    authorized = fs.readFileSync(authorizedFile, "utf8");
  });
  after(async () => {
    fs.writeFileSync(authorizedFile, authorized);
    if (agentPid) process.kill(agentPid);
    await pool.closeAll();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const [type, bits] of [
    ["rsa", "3072"],
    ["ecdsa", "256"],
  ]) {
    it(`logs in with an ${type} key from a file`, async () => {
      const host = labHost(labEnv(), { privateKeyPath: keygen(type, bits) });
      assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
    });
  }

  it("logs in with an inline key", async () => {
    const key = fs.readFileSync(keygen("ed25519"), "utf8");
    const host = labHost(labEnv(), { privateKeyPath: undefined, privateKey: key });
    assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
  });

  it("logs in through an ssh-agent holding the key", async () => {
    const sock = path.join(tmp, "agent.sock");
    const out = execFileSync("ssh-agent", ["-a", sock], { encoding: "utf8" });
    agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1]);
    const key = keygen("ed25519");
    const added = spawnSync("ssh-add", [key], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
    assert.strictEqual(added.status, 0, String(added.stderr));
    const host = labHost(labEnv(), { privateKeyPath: undefined, agent: sock });
    assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
  });
});
