// A TCP connection whose writes within one tick of the event loop leave in one writev.
// ssh2 writes every SSH packet on its own, and a forwarded channel's packets are at most
// 32 KiB: an upload made 32768 sends per GiB, which cost the sender more kernel time
// than the cipher. Corked until the tick ends, the frames written together go together
// (measured on the lab: about a tenth off a 1 GiB upload's time, sshd reading less too);
// a lone keepalive or call still leaves in the same tick.
import * as net from "net";

/** Connects to `address:port`; ssh2 takes the socket while it connects. */
export function coalescingConnection(port: number, address: string): net.Socket {
  const sock = net.connect(port, address);
  // set on the instance, after connect(): net.Socket's connect resets an own `write`
  const write = sock.write;
  let corked = false;
  sock.write = function (this: net.Socket, ...args: unknown[]): boolean {
    if (!corked) {
      corked = true;
      sock.cork();
      process.nextTick(() => {
        corked = false;
        sock.uncork();
      });
    }
    return (write as (...a: unknown[]) => boolean).apply(sock, args);
  };
  return sock;
}
