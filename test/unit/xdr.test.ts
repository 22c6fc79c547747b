import * as assert from "assert";
import { array, decode, encode, hyper, opaque, optional, string, struct, uhyper, uint } from "../../provider/rpc/codec";
import { LibvirtError } from "../../provider/rpc/errors";
import { decodeHeader, encodePacket, MessageStatus, MessageType, Packet, PacketParser, Program } from "../../provider/rpc/packet";
import { handshakeProcedures } from "../../provider/rpc/handshake";
import { remoteError, streamHole, typedParam } from "../../provider/rpc/types";
import { padded, XdrWriter } from "../../provider/rpc/xdr";

const hex = (b: Buffer) => b.toString("hex");

describe("XDR codecs", () => {
  it("encodes ints, hypers and unsigned hypers big-endian, hypers beyond 2^53 exactly", () => {
    assert.strictEqual(hex(encode(uint, 0xdeadbeef)), "deadbeef");
    assert.strictEqual(hex(encode(hyper, -2n)), "fffffffffffffffe");
    const big = (1n << 63n) + 12345n;
    assert.strictEqual(decode(uhyper, encode(uhyper, big)), big);
  });

  it("pads strings and opaques to four bytes without a terminator", () => {
    assert.strictEqual(hex(encode(string(64), "abcde")), "00000005" + "6162636465" + "000000");
    assert.strictEqual(hex(encode(string(64), "")), "00000000");
    assert.strictEqual(decode(string(64), Buffer.from("0000000361626300", "hex")), "abc");
  });

  it("encodes optionals with a 0/1 present word and rejects other flags", () => {
    const c = optional(string(64));
    assert.strictEqual(hex(encode(c, null)), "00000000");
    assert.strictEqual(hex(encode(c, "x")), "00000001" + "00000001" + "78000000");
    assert.throws(() => decode(c, Buffer.from("0100000000000001", "hex")), /present flag/);
  });

  it("pads lengths of 2^31 and more without wrapping, and bounds every variable-length item", () => {
    assert.strictEqual(padded(2 ** 31 + 1), 2 ** 31 + 4);
    assert.strictEqual(padded(2 ** 32 - 1), 2 ** 32);
    // a peer announcing a 2^31 + 1 byte opaque: refused by its bound, or as an underflow, never read with a wrapped length
    const huge = Buffer.from("80000001" + "00".repeat(8), "hex");
    assert.throws(() => decode(opaque(1024), huge), /exceeds its limit of 1024/);
    assert.throws(() => decode(opaque(2 ** 32), huge), /XDR underflow: need 2147483652 bytes/);
  });

  it("refuses array counts larger than the limit or the payload", () => {
    assert.throws(() => decode(array(uint, 2), encode(array(uint, 8), [1, 2, 3])), /limit of 2/);
    assert.throws(() => decode(array(uint, 2 ** 31), Buffer.from("7fffffff", "hex")), /exceeds/);
  });

  it("builds the fact sheet's CONNECT_OPEN example byte for byte", () => {
    const p = handshakeProcedures.connectOpen;
    const frame = encodePacket(
      { prog: Program.REMOTE, vers: 1, proc: p.proc, type: MessageType.Call, serial: 2, status: MessageStatus.Ok },
      encode(p.args, { name: "qemu:///system", flags: 0 }),
    );
    assert.strictEqual(hex(frame), "00000038200080860000000100000001000000000000000200000000" + "000000010000000e71656d753a2f2f2f73797374656d000000000000");
    assert.strictEqual(frame.length, 56);
  });

  it("decodes all eleven fields of libvirt's error struct", () => {
    const w = new XdrWriter();
    w.int(50).int(18).uint(1).string("Storage volume not found", 256).int(2);
    w.uint(1).string("dom1", 256).fixedOpaque(Buffer.alloc(16, 7), 16).int(3); // dom present
    w.uint(1).string("s1", 256).uint(0).uint(1).string("s3", 256).int(-1).int(9);
    w.uint(1).string("net1", 256).fixedOpaque(Buffer.alloc(16, 1), 16); // net present
    const e = decode(remoteError, w.bytes());
    assert.strictEqual(e.code, 50);
    assert.strictEqual(e.dom?.name, "dom1");
    assert.strictEqual(e.dom?.id, 3);
    assert.deepStrictEqual([e.str1, e.str2, e.str3, e.int1, e.int2], ["s1", null, "s3", -1, 9]);
    assert.strictEqual(e.net?.name, "net1");
    const err = new LibvirtError(e, "virStorageVolLookupByName");
    assert.strictEqual(err.codeName, "VIR_ERR_NO_STORAGE_VOL");
    assert.strictEqual(err.domainName, "STORAGE");
    assert.match(err.message, /Storage volume not found \(VIR_ERR_NO_STORAGE_VOL\)/);
  });

  it("encodes a stream hole as a hyper length and flags", () => {
    assert.strictEqual(hex(encode(streamHole, { length: 1n << 32n, flags: 0 })), "000000010000000000000000");
  });

  it("encodes a typed parameter as its field, its type word and that type's arm, and refuses an arm it does not speak", () => {
    const uri = { field: "migrate_uri", value: { type: 7 as const, value: "tcp://b" } };
    // "migrate_uri" (11 bytes + 1 pad), type 7, "tcp://b" (7 + 1 pad)
    assert.strictEqual(hex(encode(typedParam, uri)), "0000000b" + hex(Buffer.from("migrate_uri\0")) + "00000007" + "00000007" + hex(Buffer.from("tcp://b\0")));
    assert.deepStrictEqual(decode(typedParam, encode(typedParam, uri)), uri);
    const bandwidth = { field: "bandwidth", value: { type: 4 as const, value: 1n << 40n } };
    assert.deepStrictEqual(decode(typedParam, encode(typedParam, bandwidth)), bandwidth);
    // a double (type 5) from a daemon: refused by name, not misread
    const double = Buffer.concat([encode(string(16), "downtime"), Buffer.from("000000053ff0000000000000", "hex")]);
    assert.throws(() => decode(typedParam, double), /union arm 5 is not one of 1, 2, 3, 4, 6, 7/);
  });

  it("keeps struct fields in declaration order", () => {
    const c = struct({ b: uint, a: uint });
    assert.strictEqual(hex(encode(c, { a: 1, b: 2 })), "0000000200000001");
  });
});

describe("PacketParser", () => {
  const frame = (serial: number, payload: Buffer) =>
    encodePacket({ prog: Program.REMOTE, vers: 1, proc: 1, type: MessageType.Reply, serial, status: MessageStatus.Ok }, payload);

  it("reassembles packets split at every byte boundary and packed together", () => {
    const bytes = Buffer.concat([frame(1, Buffer.alloc(0)), frame(2, Buffer.from("abcdefgh")), frame(3, Buffer.alloc(100, 9))]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const parser = new PacketParser();
      const got = [...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))];
      assert.deepStrictEqual(
        got.map((p) => p.header.serial),
        [1, 2, 3],
      );
      assert.strictEqual(got[1].payload.toString(), "abcdefgh");
      assert.strictEqual(got[2].payload.length, 100);
    }
  });

  it("reassembles a packet fed in tiny pieces copying each byte a bounded number of times", () => {
    // a peer that sends 2 bytes, then the rest 64 bytes at a time: the length word spans chunks
    const payload = Buffer.alloc(256 * 1024, 7);
    const bytes = frame(9, payload);
    const concat = Buffer.concat;
    const copy = Buffer.prototype.copy;
    let copied = 0;
    Buffer.concat = (list: readonly Uint8Array[], total?: number) => {
      const b = concat(list, total);
      copied += b.length;
      return b;
    };
    Buffer.prototype.copy = function (this: Buffer, ...args: Parameters<Buffer["copy"]>) {
      const n = copy.apply(this, args);
      copied += n;
      return n;
    };
    let got: Packet[];
    try {
      const parser = new PacketParser();
      got = parser.push(bytes.subarray(0, 2));
      for (let at = 2; at < bytes.length; at += 64) got.push(...parser.push(bytes.subarray(at, at + 64)));
    } finally {
      Buffer.concat = concat;
      Buffer.prototype.copy = copy;
    }
    assert.strictEqual(got.length, 1);
    assert.ok(got[0].payload.equals(payload));
    assert.ok(copied <= 2 * bytes.length, `copied ${copied} bytes for a ${bytes.length}-byte packet`);
  });

  it("rejects lengths below a header and above libvirt's limit", () => {
    assert.throws(() => new PacketParser().push(Buffer.from("0000001b", "hex")), /smaller than a header/);
    assert.throws(() => new PacketParser().push(Buffer.from("7fffffff", "hex")), /exceeds/);
  });

  it("reads the length word as counting itself", () => {
    const f = frame(7, Buffer.alloc(4));
    assert.strictEqual(f.readUInt32BE(0), 32);
    assert.strictEqual(decodeHeader(f, 4).serial, 7);
  });
});
