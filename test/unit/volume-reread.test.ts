// A create waits for libvirt's own re-read of a volume it uploaded (describeReread), and a
// Volume takes a qcow2 source's size from its header: when libvirt re-reads is its thread's
// business, which the lab cannot bring about on demand, so libvirt is a stand-in here.
import * as assert from "assert";
import type { Libvirt, VolumeRef } from "../../provider/libvirt/api";
import { describeReread } from "../../provider/resources/storage";
import { qcow2VirtualSize } from "../../provider/image/header";

const vol = { pool: "default", name: "img.qcow2", key: "/p/img.qcow2" } as unknown as VolumeRef;

/** A libvirt whose description of the volume is `views[i]` at its i-th reading, the last one after. */
function libvirtDescribing(views: { format: string; capacity: number }[]): { lv: Libvirt; readings: () => number } {
  let n = 0;
  const lv = {
    volumeXml: async () => {
      const v = views[Math.min(n++, views.length - 1)];
      return `<volume><name>img.qcow2</name><capacity unit='bytes'>${v.capacity}</capacity><target><path>/p/img.qcow2</path><format type='${v.format}'/></target></volume>`;
    },
    volumePath: async () => "/p/img.qcow2",
  } as unknown as Libvirt;
  return { lv, readings: () => n };
}

describe("libvirt's re-read of an uploaded volume", () => {
  const header = { format: "qcow2", capacityBytes: 64 * 2 ** 20 };

  it("waits while libvirt still describes what it read under the head mark, and returns its description once it holds the header", async () => {
    const { lv, readings } = libvirtDescribing([
      { format: "raw", capacity: 10747904 },
      { format: "raw", capacity: 10747904 },
      { format: "qcow2", capacity: header.capacityBytes },
    ]);
    const d = await describeReread(lv, vol, header);
    assert.deepStrictEqual([d.format, d.capacityBytes, readings()], ["qcow2", header.capacityBytes, 3]);
  });

  it("reads once when libvirt already holds the header", async () => {
    const { lv, readings } = libvirtDescribing([{ format: "qcow2", capacity: header.capacityBytes }]);
    await describeReread(lv, vol, header);
    assert.strictEqual(readings(), 1);
  });

  it("gives libvirt's description after its bound when libvirt never re-reads (it skips that while a volume is built in the pool)", async () => {
    const { lv, readings } = libvirtDescribing([{ format: "raw", capacity: 10747904 }]);
    const d = await describeReread(lv, vol, header, 250);
    assert.strictEqual(d.format, "raw");
    assert.ok(readings() >= 2, `read again within the bound (${readings()} readings)`);
  });

  it("takes a qcow2's size from its header, and none from bytes that are not one", () => {
    const head = Buffer.alloc(512);
    Buffer.from([0x51, 0x46, 0x49, 0xfb]).copy(head);
    head.writeUInt32BE(3, 4);
    head.writeBigUInt64BE(BigInt(header.capacityBytes), 24);
    assert.strictEqual(qcow2VirtualSize(head), header.capacityBytes);
    assert.strictEqual(qcow2VirtualSize(Buffer.alloc(512)), undefined);
  });
});
