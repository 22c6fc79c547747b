// A loopback TCP proxy of the tests' own in front of sshd, to blackhole, delay or
// reset the link on demand (what the real parts cannot do when asked).
import * as net from "net";

/** "replies-lost": what the client sends still arrives, nothing comes back (a request made, its answer lost). */
export type ProxyMode = "pass" | "blackhole" | "replies-lost";

export class TcpProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  mode: ProxyMode = "pass";
  delayMs = 0;
  accepted = 0;
  /** Bytes the clients sent through the proxy so far. */
  sent = 0;
  private cutAt: number | undefined;

  private constructor(
    private readonly targetPort: number,
    private readonly targetHost = "127.0.0.1",
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(targetPort: number): Promise<TcpProxy> {
    const p = new TcpProxy(targetPort);
    await new Promise<void>((resolve) => p.server.listen(0, "127.0.0.1", resolve));
    return p;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket): void {
    this.accepted++;
    const upstream = net.connect(this.targetPort, this.targetHost);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.pairs.add(pair);
    const pipe = (from: net.Socket, to: net.Socket) =>
      from.on("data", (d: Buffer) => {
        if (this.mode === "blackhole") return; // swallowed: the peer sees silence, not a reset
        if (this.mode === "replies-lost" && from === upstream) return;
        if (from === client) this.sent += d.length;
        if (this.cutAt !== undefined && this.sent >= this.cutAt) {
          this.cutAt = undefined;
          this.reset();
          return;
        }
        if (this.delayMs > 0) setTimeout(() => to.writable && to.write(d), this.delayMs);
        else if (to.writable) to.write(d);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  }

  /** Resets every connection once the clients have sent `bytes` more (e.g. in the middle of an upload). */
  cutAfter(bytes: number): void {
    this.cutAt = this.sent + bytes;
  }

  /** Cuts every open connection with a reset. */
  reset(): void {
    for (const [a, b] of this.pairs) {
      a.resetAndDestroy();
      b.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
