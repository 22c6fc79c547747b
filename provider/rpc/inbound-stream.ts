// A stream the daemon only sends on (virDomainOpenConsole): each data packet goes to the
// caller's `onData` as it comes, nothing is buffered here; we never send data on it. The
// stream ends with the daemon's EOF or error, the link's end, or the caller's `close`.
import { RpcClient, StreamSink } from "./client";
import { encodePacket, MessageStatus, MessageType, Packet } from "./packet";
import { Procedure } from "./procedure";

export interface InboundStream {
  /** Settles when the stream ends: undefined for an EOF or `close`, the error otherwise. Never rejects. */
  readonly ended: Promise<Error | undefined>;
  /** Aborts the stream on the daemon's side and stops routing its packets; idempotent. */
  close(): void;
}

export async function openInbound<A>(
  client: RpcClient,
  proc: Procedure<A, unknown>,
  args: A,
  onData: (chunk: Buffer) => void,
  signal?: AbortSignal,
): Promise<InboundStream> {
  let serial: number | undefined;
  let done = false;
  let settle!: (err: Error | undefined) => void;
  const ended = new Promise<Error | undefined>((resolve) => (settle = resolve));
  const frame = (status: MessageStatus) => encodePacket(client.header(proc.proc, MessageType.Stream, serial!, status));
  const end = (err: Error | undefined, tell?: MessageStatus) => {
    if (done) return;
    done = true;
    // an EOF is confirmed with a finish, our own end is an abort; the daemon's answer is not awaited
    if (tell !== undefined && serial !== undefined && !client.closed) client.write(frame(tell));
    if (serial !== undefined) client.closeStream(serial);
    settle(err);
  };
  const sink: StreamSink = {
    onPacket(packet: Packet) {
      // packets can come before openStream resolved
      serial ??= packet.header.serial;
      const { status, type } = packet.header;
      if (status === MessageStatus.Error) end(client.decodeError(packet.payload, proc.api));
      else if (status === MessageStatus.Ok) end(undefined);
      else if (type === MessageType.Stream) {
        if (packet.payload.length === 0) end(undefined, MessageStatus.Ok);
        else if (!done) onData(Buffer.from(packet.payload));
      }
    },
    onClose(err: Error) {
      end(err);
    },
  };
  serial = await client.openStream(proc, args, sink, signal);
  return { ended, close: () => end(undefined, MessageStatus.Error) };
}
