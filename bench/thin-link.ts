// `node thin-link.js PORT BYTES_PER_SECOND DELAY_MS`: a TCP link of that rate and one-way
// delay in front of 127.0.0.1:PORT, in a process of its own (the measured processes do
// not also carry the link). Each direction is a token bucket: a chunk leaves DELAY_MS
// after it arrived and no sooner than the rate allows; a sender is paused while more
// than a bandwidth-delay product and a little queue wait, as behind a real link.
// Prints the port it listens on.
import * as net from "net";

const [target, rate, delayMs] = process.argv.slice(2).map(Number);
const QUEUE = Math.max(64 * 1024, (rate * 2 * delayMs) / 1000 + 64 * 1024);

function shape(from: net.Socket, to: net.Socket): void {
  let queued = 0;
  let free = Date.now(); // when the link is next free
  from.on("data", (d: Buffer) => {
    const now = Date.now();
    free = Math.max(free, now) + (d.length * 1000) / rate;
    queued += d.length;
    if (queued > QUEUE) from.pause();
    setTimeout(
      () => {
        queued -= d.length;
        if (queued <= QUEUE) from.resume();
        if (to.writable) to.write(d);
      },
      free - now + delayMs,
    );
  });
  from.on("end", () => setTimeout(() => to.writable && to.end(), Math.max(0, free - Date.now()) + delayMs));
}

// half-open: an end is passed on after the data before it, not at once
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ port: target, host: "127.0.0.1", allowHalfOpen: true });
  shape(client, upstream);
  shape(upstream, client);
  const fail = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", fail);
  upstream.on("error", fail);
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as net.AddressInfo).port}\n`));
