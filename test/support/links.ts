// Byte streams to the lab's libvirtd for protocol tests: the local unix socket, or a
// streamlocal forward through the lab's sshd with a strictly verified host key.
import * as crypto from "crypto";
import * as fs from "fs";
import * as net from "net";
import { Duplex } from "stream";
import { Client } from "ssh2";
import { LabEnv } from "./lab";

export function localSocket(lab: LabEnv): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(lab.socket);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });
}

function knownKeys(lab: LabEnv): Buffer[] {
  return fs
    .readFileSync(lab.knownHosts, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => Buffer.from(l.split(" ")[2], "base64"));
}

/** An SSH session to the lab plus a forwarded stream to libvirtd's socket. */
export function sshSocket(lab: LabEnv): Promise<{ ssh: Client; stream: Duplex }> {
  const keys = knownKeys(lab);
  return new Promise((resolve, reject) => {
    const ssh = new Client();
    ssh.once("error", reject);
    ssh.once("ready", () => {
      ssh.openssh_forwardOutStreamLocal(lab.socket, (err, stream) => {
        if (err) {
          ssh.end();
          reject(err);
          return;
        }
        resolve({ ssh, stream });
      });
    });
    ssh.connect({
      host: lab.host,
      port: lab.port,
      username: lab.user,
      privateKey: fs.readFileSync(lab.key),
      hostVerifier: (key: Buffer) =>
        keys.some((k) => crypto.timingSafeEqual(k.length === key.length ? k : Buffer.alloc(key.length), key) && k.length === key.length),
    });
  });
}
