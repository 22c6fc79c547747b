// Downloads against a loopback HTTP server of the test's own: redirects that can never
// work fail at once and are not retried, a stalled body fails after the stall bound;
// URLs with credentials stay out of messages (the SDK makes them secrets: sdk-secrets.test.ts); plain http is warned about.
import * as assert from "assert";
import * as http from "http";
import * as net from "net";
import { displayUrl, DownloadError, DownloadOptions, MAX_REDIRECTS, openDownload, redirectTarget } from "../../provider/image/download";
import { setLogSink } from "../../provider/log";
import { digestFor, fetchChecksums } from "../../provider/image/checksums";
import { imageProvider } from "../../provider/kinds/image/lifecycle";

async function serve(handler: http.RequestListener): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Opens `url` and reads its whole body, as an upload would. */
async function download(url: string, opts: DownloadOptions): Promise<number> {
  const opened = await openDownload(url, opts);
  let got = 0;
  for await (const b of opened.body) got += b.length;
  return got;
}

describe("download", () => {
  it(`follows at most ${MAX_REDIRECTS} redirects, then fails for good`, async () => {
    const s = await serve((req, res) => {
      res.writeHead(302, { location: `/hop${req.url!.length}` });
      res.end();
    });
    try {
      await assert.rejects(
        download(`${s.url}/start`, { attempts: 3, backoffMs: 1 }),
        (e: unknown) => e instanceof DownloadError && e.permanent && /redirected more than 20 times/.test(e.message),
      );
      assert.strictEqual(s.requests.length, MAX_REDIRECTS + 1, "no retry of a redirect loop");
    } finally {
      await s.close();
    }
  });

  it("never follows a redirect to a file: URL, and does not retry it", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(301, { location: "file:///etc/shadow" });
      res.end();
    });
    try {
      await assert.rejects(download(`${s.url}/image.qcow2`, { attempts: 4, backoffMs: 1 }), /redirects to a file: URL, which is never followed/);
      assert.strictEqual(s.requests.length, 1);
    } finally {
      await s.close();
    }
  });

  it("refuses an https → http downgrade, and resolves relative locations", () => {
    assert.throws(
      () => redirectTarget("https://mirror.example/a.qcow2", "http://mirror.example/a.qcow2", 0),
      (e: unknown) => e instanceof DownloadError && e.permanent && /downgrade/.test(e.message),
    );
    assert.strictEqual(redirectTarget("https://mirror.example/x/a.qcow2", "../b.qcow2", 0), "https://mirror.example/b.qcow2");
    assert.strictEqual(redirectTarget("http://mirror.example/a", "https://cdn.example/a", 0), "https://cdn.example/a");
  });

  it("fails a body that crawls (a trickle keeps it alive without the bound), naming the rate and the bound", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": String(1024 * 1024) });
      const timer = setInterval(() => res.write(Buffer.alloc(1024)), 50); // ~20 KiB/s
      res.on("close", () => clearInterval(timer));
    });
    try {
      await assert.rejects(
        download(`${s.url}/image.raw`, { attempts: 1, stallMs: 400, minRate: 64 * 1024 }),
        (e: unknown) =>
          e instanceof DownloadError &&
          /crawled at (1\d|2\d)\.\d KiB\/s over 0 s, below the bound of 64\.0 KiB\/s \(PULUMI_KVM_DOWNLOAD_MIN_RATE\)/.test((e as Error).message),
      );
      // the same trickle within a lower bound goes on (stopped here after 2 s of it)
      const opened = await openDownload(`${s.url}/image.raw`, { attempts: 1, stallMs: 400, minRate: 4 * 1024 });
      let got = 0;
      const started = Date.now();
      for await (const b of opened.body) {
        got += b.length;
        if (Date.now() - started > 2000) break;
      }
      assert.ok(got >= 20 * 1024, `only ${got} bytes`);
    } finally {
      await s.close();
    }
  });

  it("fails a body that stalls after the stall bound, naming it, and a server that cannot resume it", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write(Buffer.alloc(10));
    });
    try {
      await assert.rejects(
        download(`${s.url}/image.qcow2`, { attempts: 2, backoffMs: 1, stallMs: 300 }),
        /broke at byte 10 and its server cannot resume there \(HTTP 200 to a Range request\)/,
      );
      assert.strictEqual(s.requests.length, 2, "one resume, answered with the whole body: given up");
      await assert.rejects(
        download(`${s.url}/image.qcow2`, { attempts: 1, stallMs: 300 }),
        (e: unknown) =>
          e instanceof DownloadError &&
          !e.permanent &&
          /truncated: 10 of 1000 bytes \(no data for 0\.3 s \(PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT\)\)/.test(e.message),
      );
      assert.strictEqual(s.requests.length, 3);
    } finally {
      await s.close();
    }
  });

  it("retries a server that never answers, then fails naming the stall", async () => {
    const s = await serve(() => undefined);
    try {
      await assert.rejects(download(`${s.url}/image.qcow2`, { attempts: 2, backoffMs: 1, stallMs: 300 }), /cannot fetch .*no data for 0\.3 s/);
      assert.strictEqual(s.requests.length, 2, "no answer may heal: retried");
    } finally {
      await s.close();
    }
  });

  it("does not count a slow reader as a stall: the bound runs only while waiting for bytes", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": String(4 << 20) });
      res.end(Buffer.alloc(4 << 20, 7));
    });
    try {
      const opened = await openDownload(`${s.url}/image.raw`, { attempts: 1, stallMs: 200 });
      let got = 0;
      for await (const b of opened.body) {
        got += b.length;
        if (got === b.length) await new Promise((r) => setTimeout(r, 500)); // the upload is busy
      }
      assert.strictEqual(got, 4 << 20);
    } finally {
      await s.close();
    }
  });

  it("fails a body shorter than its Content-Length", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.end(Buffer.alloc(10));
    });
    try {
      await assert.rejects(download(`${s.url}/image.qcow2`, { attempts: 1, backoffMs: 1 }), /truncated: 10 of 1000 bytes/);
    } finally {
      await s.close();
    }
  });
});

describe("image URLs carrying credentials", () => {
  it("are shown without userinfo or query in every message", async () => {
    assert.strictEqual(displayUrl("https://user:pw@mirror.example/a.qcow2?token=abc"), "https://mirror.example/a.qcow2?…");
    const s = await serve((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    try {
      const err = await download(`${s.url.replace("http://", "http://user:SECRETPW@")}/image.qcow2?sig=SECRETSIG`, { attempts: 1 }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.ok(err, "a 404 fails");
      assert.match(err.message, /answered HTTP 404/);
      assert.doesNotMatch(err.message, /SECRET/);
    } finally {
      await s.close();
    }
  });
});

describe("plain http without a checksum", () => {
  const warnings = async (source: Record<string, string>): Promise<string[]> => {
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    process.env.PULUMI_KVM_SKIP_HOST_CHECK = "1";
    try {
      await imageProvider.check(
        {} as never,
        { host: { address: "hv1", user: "root", privateKeyPath: "/nonexistent" }, resourceName: `w${Math.random()}`, source } as never,
      );
    } finally {
      delete process.env.PULUMI_KVM_SKIP_HOST_CHECK;
      setLogSink(undefined);
    }
    return lines.filter((l) => /plain http/.test(l));
  };
  it("is warned about in check (preview), without the URL's query", async () => {
    const w = await warnings({ url: "http://mirror.example/a.qcow2?sig=SECRET" });
    assert.strictEqual(w.length, 1);
    assert.match(w[0], /warning: source\.url http:\/\/mirror\.example\/a\.qcow2\?… is plain http and has no checksum/);
    assert.doesNotMatch(w[0], /SECRET/);
  });
  it("is not warned about with a sha256, or over https", async () => {
    assert.deepStrictEqual(await warnings({ url: "http://mirror.example/a.qcow2", sha256: "a".repeat(64) }), []);
    assert.deepStrictEqual(await warnings({ url: "https://mirror.example/a.qcow2" }), []);
  });
});

describe("published checksum files", () => {
  it("give the line of the image's file name, in GNU (text and binary) and BSD form, sha256 or sha512 by length", () => {
    const a = "a".repeat(64);
    const b = "B".repeat(128);
    const sums = `${"0".repeat(64)}  debian-12-genericcloud-amd64.raw\n${a} *debian-12-genericcloud-amd64.qcow2\n`;
    assert.deepStrictEqual(digestFor(sums, "debian-12-genericcloud-amd64.qcow2"), { algorithm: "sha256", digest: a });
    assert.deepStrictEqual(digestFor(`${b}  ./img.qcow2\r\n`, "img.qcow2"), { algorithm: "sha512", digest: b.toLowerCase() });
    assert.deepStrictEqual(digestFor(`SHA512 (img.qcow2) = ${b}\n`, "img.qcow2"), { algorithm: "sha512", digest: b.toLowerCase() });
    assert.strictEqual(digestFor(sums, "img.qcow2"), undefined);
    assert.strictEqual(digestFor(`${"c".repeat(40)}  img.qcow2\n`, "img.qcow2"), undefined, "a sha1 is no digest taken here");
  });

  it("are fetched bounded: a file larger than a checksum file is refused", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(2 * 1024 * 1024, 0x41));
    });
    try {
      await assert.rejects(fetchChecksums(`${s.url}/SHA256SUMS`), /larger than 1048576 bytes: not a checksum file/);
    } finally {
      await s.close();
    }
  });

  it("make one of sha256, sha512 and checksumUrl the only checksum a source takes", async () => {
    process.env.PULUMI_KVM_SKIP_HOST_CHECK = "1";
    try {
      const r = await imageProvider.check(undefined, {
        host: { address: "h" },
        name: "i",
        source: { url: "https://example.invalid/i.qcow2", sha256: "a".repeat(64), sha512: "b".repeat(128) },
      } as never);
      assert.deepStrictEqual(
        r.failures.map((f) => f.property),
        ["source.sha512"],
      );
      const bad = await imageProvider.check(undefined, {
        host: { address: "h" },
        name: "i",
        source: { url: "https://example.invalid/i.qcow2", sha512: "b".repeat(127) },
      } as never);
      assert.match(bad.failures[0].reason, /source\.sha512 must be 128 hex digits \(sha512sum's output\)/);
    } finally {
      delete process.env.PULUMI_KVM_SKIP_HOST_CHECK;
    }
  });
});
