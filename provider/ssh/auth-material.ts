// SSH auth material, loaded lazily at the first dial and cached once a dial worked.
// A missing key file is transient (a mounted secret may appear later); a key that
// does not parse, or a wrong passphrase, is permanent.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { utils } from "ssh2";
import { warn } from "../log";
import { DialError } from "./dial-error";
import { expandHome, ResolvedHost } from "./host";

export interface AuthMaterial {
  privateKey?: Buffer;
  passphrase?: string;
  agent?: string;
  /** Where the key came from, for messages (never the key itself). */
  source: string;
}

const DEFAULT_KEYS = ["id_ed25519", "id_ecdsa", "id_rsa"];

export class AuthMaterialLoader {
  private cached: AuthMaterial | undefined;

  constructor(private readonly host: ResolvedHost) {}

  /** The material for the next dial: the cached one once a dial succeeded, else loaded now. */
  load(): AuthMaterial {
    return this.cached ?? this.read();
  }

  /** Called after a successful dial: keep this material. */
  confirm(m: AuthMaterial): void {
    this.cached = m;
  }

  /** Checks at startup without failing: an unreadable key only logs a warning. */
  warnEarly(): void {
    try {
      this.read();
    } catch (err) {
      warn((err as Error).message);
    }
  }

  private fail(message: string, transient: boolean, hint: string, cause?: unknown): never {
    throw new DialError("ssh-material", this.host.label, message, { hint, cause, errorClass: transient ? "transient" : "permanent" });
  }

  private parse(key: Buffer, source: string, passphrase?: string): Buffer {
    const parsed = utils.parseKey(key, passphrase);
    if (parsed instanceof Error) {
      if (/no passphrase given/i.test(parsed.message)) {
        this.fail(`${source} is encrypted and no passphrase was given`, false, "Set passphrase in the host configuration (as a secret)");
      }
      if (/passphrase|decrypt|integrity/i.test(parsed.message)) {
        this.fail(`the passphrase does not decrypt ${source}`, false, "Check the passphrase given for this key");
      }
      this.fail(
        `${source} is not a private key ssh can use (${parsed.message})`,
        false,
        "Give an OpenSSH or PEM private key (ed25519, ecdsa or rsa), e.g. one made by ssh-keygen",
      );
    }
    return key;
  }

  private readKeyFile(file: string, passphrase?: string): AuthMaterial {
    let data: Buffer;
    try {
      data = fs.readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        this.fail(
          `private key file ${file} does not exist`,
          true,
          "Create it or fix privateKeyPath; a key that appears later is picked up on the next call",
          err,
        );
      }
      this.fail(`cannot read private key file ${file} (${code})`, code === "EACCES" ? false : true, "Make the file readable by the user running pulumi", err);
    }
    return { privateKey: this.parse(data, file, passphrase), passphrase, source: file };
  }

  private read(): AuthMaterial {
    const c = this.host.config;
    const agent = c.agent === true ? process.env.SSH_AUTH_SOCK : typeof c.agent === "string" ? c.agent : undefined;
    if (c.agent === true && !agent) {
      this.fail("agent: true but SSH_AUTH_SOCK is not set", true, "Start ssh-agent (eval $(ssh-agent); ssh-add) or give a private key");
    }
    if (c.privateKey) {
      const key = Buffer.from(c.privateKey);
      return { privateKey: this.parse(key, "the privateKey given inline", c.passphrase), passphrase: c.passphrase, agent, source: "inline privateKey" };
    }
    if (c.privateKeyPath) return { ...this.readKeyFile(expandHome(c.privateKeyPath), c.passphrase), agent };
    for (const f of this.host.identityFiles) {
      if (fs.existsSync(f)) return { ...this.readKeyFile(f, c.passphrase), agent };
    }
    // nothing given: the agent if there is one, else OpenSSH's default keys
    const envAgent = agent ?? process.env.SSH_AUTH_SOCK;
    if (envAgent) return { agent: envAgent, source: `ssh-agent at ${envAgent}` };
    for (const name of DEFAULT_KEYS) {
      const f = path.join(os.homedir(), ".ssh", name);
      if (fs.existsSync(f)) return this.readKeyFile(f, c.passphrase);
    }
    this.fail(
      "no private key and no ssh-agent",
      true,
      `Give privateKeyPath or privateKey, set agent: true with a running ssh-agent, or create ~/.ssh/${DEFAULT_KEYS[0]}`,
    );
  }
}
