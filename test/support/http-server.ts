// A loopback HTTP server serving a file (and byte ranges of it, as real servers do,
// unless `ranges` is off), with scripted failures for download tests.
import * as fs from "fs";
import * as http from "http";
import * as net from "net";

export type Fault = "500" | "404" | "truncate";

export class FileServer {
  readonly requests: string[] = [];
  /** HEAD requests (preview's size check), apart from the downloads. */
  readonly heads: string[] = [];
  /** Faults applied to the next requests, one each, in order. */
  faults: Fault[] = [];
  /** Whether Range requests get their 206 answer (else the whole file, 200). */
  ranges = true;
  /** Answers without Content-Length (chunked), as some servers and proxies do. */
  lengthless = false;
  /** A Content-Length to announce instead of the file's (a lying mirror). */
  claimedLength: number | undefined;
  /** Every answer breaks halfway, not only those `faults` names. */
  alwaysTruncate = false;
  /** The Range header of each request ("" for none). */
  readonly ranged: string[] = [];
  private readonly server: http.Server;

  private constructor(private readonly file: string) {
    this.server = http.createServer((req, res) => this.serve(req, res));
  }

  static async start(file: string): Promise<FileServer> {
    const s = new FileServer(file);
    await new Promise<void>((r) => s.server.listen(0, "127.0.0.1", r));
    return s;
  }

  url(name = "image.qcow2"): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/${name}`;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === "HEAD") {
      // check's look at the announced size: not a download, so no fault is spent on it
      this.heads.push(req.url ?? "");
      if (req.url?.includes("missing")) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, this.lengthless ? {} : { "content-length": String(this.claimedLength ?? fs.statSync(this.file).size) });
      res.end();
      return;
    }
    this.requests.push(req.url ?? "");
    const fault = this.faults.shift();
    const size = fs.statSync(this.file).size;
    if (fault === "500") {
      res.writeHead(500);
      res.end("boom");
      return;
    }
    if (fault === "404" || req.url?.includes("missing")) {
      res.writeHead(404);
      res.end("not found");
      return;
    }
    this.ranged.push(req.headers.range ?? "");
    const m = this.ranges ? /^bytes=(\d+)-$/.exec(req.headers.range ?? "") : null;
    const from = m ? Number(m[1]) : 0;
    const length = this.lengthless ? {} : { "content-length": String(this.claimedLength ?? size - from) };
    if (m) res.writeHead(206, { ...length, "content-range": `bytes ${from}-${size - 1}/${size}` });
    else res.writeHead(200, { ...length, "accept-ranges": this.ranges ? "bytes" : "none" });
    if (fault === "truncate" || this.alwaysTruncate) {
      // half of what this answer owes, then a reset
      const fd = fs.openSync(this.file, "r");
      const half = Buffer.alloc(Math.floor((size - from) / 2));
      fs.readSync(fd, half, 0, half.length, from);
      fs.closeSync(fd);
      res.write(half, () => res.destroy());
      return;
    }
    fs.createReadStream(this.file, { start: from, highWaterMark: 1024 * 1024 }).pipe(res);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
