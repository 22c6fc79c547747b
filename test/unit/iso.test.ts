// The seed ISO writer, cross-checked with Debian's isoinfo and xorriso (the guest
// reading it is proven in the Domain tests).
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { buildIso, primaryName } from "../../provider/iso/iso9660";
import { buildSeed } from "../../provider/iso/seed";
import { tempDir } from "../support/tmp";

describe("seed ISO", () => {
  const dir = tempDir("iso-");
  const file = path.join(dir, "seed.iso");
  const userData = "#cloud-config\nusers:\n  - name: ops\n" + "x".repeat(5000) + "\n";
  const seed = buildSeed(
    { userData, hostname: "web-1", networkConfig: "version: 2\nethernets: {}\n", metaData: "instance-id: ignored\nfoo: bar\n" },
    "fallback",
    "i-0123456789abcdef",
  );
  fs.writeFileSync(file, seed.iso);
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is labelled cidata and keeps the real file names in its Joliet tree", () => {
    assert.match(execFileSync("isoinfo", ["-d", "-i", file], { encoding: "utf8" }), /Volume id: cidata/);
    const joliet = execFileSync("isoinfo", ["-J", "-f", "-i", file], { encoding: "utf8" }).split("\n").filter(Boolean).sort();
    assert.deepStrictEqual(joliet, ["/meta-data", "/network-config", "/user-data"]);
    const xorriso = execFileSync("xorriso", ["-indev", file, "-ls", "/"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    for (const n of ["meta-data", "network-config", "user-data"]) assert.ok(xorriso.includes(`'${n}'`), xorriso);
  });

  it("holds the files byte for byte, with instance-id and local-hostname in meta-data", () => {
    const read = (n: string) => execFileSync("isoinfo", ["-J", "-x", `/${n}`, "-i", file], { encoding: "utf8" });
    assert.strictEqual(read("user-data"), userData);
    const meta = read("meta-data");
    assert.match(meta, new RegExp(`^instance-id: ${seed.instanceId}\nlocal-hostname: "web-1"\n`));
    assert.match(meta, /foo: bar/);
    assert.doesNotMatch(meta, /ignored/, "the user's instance-id does not override pulumi-kvm's");
  });

  it("takes the instance-id it is given, nothing derived from the content, and is reproducible", () => {
    const again = buildSeed(
      { userData, hostname: "web-1", networkConfig: "version: 2\nethernets: {}\n", metaData: "instance-id: ignored\nfoo: bar\n" },
      "fallback",
      "i-0123456789abcdef",
    );
    assert.ok(again.iso.equals(seed.iso));
    const other = buildSeed({ userData: userData + "#\n", hostname: "web-1" }, "fallback", "i-0123456789abcdef");
    assert.strictEqual(other.instanceId, seed.instanceId, "other content, the same instance-id given");
  });

  it("writes vendor-data when given, and none unless given", () => {
    const vendorData = "#cloud-config\nruncmd:\n  - [touch, /run/vendor]\n";
    const withVendor = buildSeed({ userData, hostname: "web-1", vendorData }, "fallback", "i-1");
    const vfile = path.join(dir, "vendor.iso");
    fs.writeFileSync(vfile, withVendor.iso);
    assert.strictEqual(execFileSync("isoinfo", ["-J", "-x", "/vendor-data", "-i", vfile], { encoding: "utf8" }), vendorData);
    const joliet = execFileSync("isoinfo", ["-J", "-f", "-i", file], { encoding: "utf8" });
    assert.doesNotMatch(joliet, /vendor-data/, "no vendor-data file unless given");
  });

  it("makes unique 8.3 primary names and refuses names it cannot write", () => {
    const taken = new Set<string>();
    assert.deepStrictEqual(
      ["network-config", "network-configs", "user-data"].map((n) => primaryName(n, taken)),
      ["NETWORK_.", "NETWORK1.", "USER_DAT."],
    );
    assert.throws(() => buildIso([{ name: "a b", data: Buffer.alloc(1) }], { volumeId: "x" }), /not supported/);
  });
});
