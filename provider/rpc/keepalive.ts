// libvirt's keepalive program (virkeepaliveprotocol.x): a PING every `interval` seconds
// of silence, the link declared dead after `count` unanswered PINGs. Any
// received packet counts as life. PONGs to the daemon's PINGs are the client's job.
import { encodePacket, KeepaliveProc, MessageStatus, MessageType, Program, PROGRAM_VERSION } from "./packet";

export function keepaliveFrame(proc: number): Buffer {
  return encodePacket({ prog: Program.KEEPALIVE, vers: PROGRAM_VERSION, proc, type: MessageType.Message, serial: 0, status: MessageStatus.Ok });
}

export const PING = keepaliveFrame(KeepaliveProc.PING);
export const PONG = keepaliveFrame(KeepaliveProc.PONG);

export interface KeepaliveLink {
  /** Sends a frame on the link. */
  send(frame: Buffer): void;
  /** Called once when the peer stayed silent through `count` PINGs. */
  dead(reason: string): void;
}

export class Keepalive {
  private lastReceived = Date.now();
  private lastPing = 0;
  private unanswered = 0;
  private readonly timer: NodeJS.Timeout;

  /**
   * As libvirt's own client: a PING every `intervalSeconds` while the peer is silent, and
   * the link dead when `count` of them went unanswered, interval × (count + 1) seconds
   * after the peer's last packet.
   */
  constructor(link: KeepaliveLink, intervalSeconds: number, count: number) {
    const ms = intervalSeconds * 1000;
    this.timer = setInterval(
      () => {
        if (Date.now() - Math.max(this.lastReceived, this.lastPing) < ms) return;
        if (this.unanswered >= count) {
          this.stop();
          link.dead(
            `libvirtd did not answer for ${Math.round((Date.now() - this.lastReceived) / 1000)} s (keepalive: ${count} pings every ${intervalSeconds} s)`,
          );
          return;
        }
        this.unanswered++;
        this.lastPing = Date.now();
        link.send(PING);
      },
      Math.max(20, Math.min(ms / 10, 1000)),
    );
    this.timer.unref();
  }

  /** Any packet from the peer proves the link alive. */
  received(): void {
    this.lastReceived = Date.now();
    this.unanswered = 0;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
