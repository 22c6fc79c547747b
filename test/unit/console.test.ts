// The console's tail as errors and `pulumi-kvm console` show it: a guest prints what it
// likes, so what reaches the user's terminal is plain text, and only its end is kept.
import * as assert from "assert";
import { ConsoleTail, printable, printableLines, REDACTED } from "../../provider/kinds/domain/console";
import { describeState, DomainState } from "../../provider/libvirt/api";

describe("console", () => {
  it("drops escape sequences, control and bidi-override characters a guest prints, keeping the text", () => {
    const hostile = "\x1b[2J\x1b[31mred\x1b[0m \x1b]0;pwned title\x07ok\r\n\x07bell\x08\u202eevil\u202c\x00\n";
    assert.strictEqual(printable(hostile), "red ok\nbellevil\n");
    assert.deepStrictEqual(printableLines("a\r\n\r\nb\rc\n   \n"), ["a", "b", "c"]);
  });

  it("keeps the last 25 lines, and a bounded end of a console that never stops", () => {
    const tail = new ConsoleTail();
    for (let i = 0; i < 10_000; i++) tail.push(Buffer.from(`line ${i} ${"x".repeat(60)}\n`));
    const lines = tail.lines();
    assert.strictEqual(lines.length, 25);
    assert.match(lines[24], /^line 9999 /);
    assert.match(lines[0], /^line 9975 /);
    assert.ok(Buffer.byteLength(tail.lines(1e6).join("\n")) <= 32 * 1024, "at most about 16 KiB is held");
  });

  it("never repeats the passwords cloud-init prints as generated, however the console's bytes arrive", () => {
    // as cloud-init's cc_set_passwords prints them to the console (util.multi_log)
    const text =
      "[   41.2] cloud-init[612]: Cloud-init v. 22.4.2 running 'modules:config'\r\n" +
      "Set the following 'random' passwords\n" +
      "root:Kx7pQ2mZ9wLe4RtY\n" +
      "debian:hunter2-generated\n" +
      "\n" +
      "[   43.0] cloud-init[700]: ci-info: no authorized SSH keys fingerprints found for user debian.\n" +
      "login: root:notapassword\n";
    for (const size of [text.length, 7, 1]) {
      const tail = new ConsoleTail();
      for (let at = 0; at < text.length; at += size) {
        tail.push(Buffer.from(text.slice(at, at + size)));
        const shown = tail.lines(1e6).join("\n");
        assert.doesNotMatch(shown, /Kx7p|hunter2/, `a password showed while the console arrived in pieces of ${size}`);
      }
      const lines = tail.lines();
      assert.deepStrictEqual(lines.slice(1, 4), ["Set the following 'random' passwords", `root:${REDACTED}`, `debian:${REDACTED}`]);
      assert.strictEqual(lines[5], "login: root:notapassword", "lines after the list are kept as printed");
    }
  });

  it("tells a kernel panic", () => {
    const tail = new ConsoleTail();
    tail.push(Buffer.from("[    2.1] Kernel panic - not sync"));
    assert.strictEqual(tail.deadEnd(), undefined);
    tail.push(Buffer.from("ing: VFS: Unable to mount root fs\n"));
    assert.strictEqual(tail.deadEnd(), "its kernel panicked");
  });

  it("tells UEFI firmware that found nothing it may boot (Secure Boot refusing an unsigned bootloader, as seen on the lab)", () => {
    const tail = new ConsoleTail();
    tail.push(Buffer.from('BdsDxe: failed to load Boot0001 "UEFI Misc Device" from PciRoot(0x0)/Pci(0x1,0x6)/Pci(0x0,0x0): Access Denied\n'));
    assert.strictEqual(tail.deadEnd(), undefined, "one boot option refused: the firmware tries the next");
    tail.push(Buffer.from("BdsDxe: No bootable option or device was found.\nBdsDxe: Press any key to enter the Boot Manager Menu.\n"));
    assert.match(tail.deadEnd()!, /^its UEFI firmware found nothing it may boot \(with secureBoot/);
  });

  it("names a domain's state with libvirt's reason, leaving out how a running one got there", () => {
    assert.strictEqual(describeState({ state: DomainState.SHUTOFF, reason: 2 }), "shut off (destroyed)");
    assert.strictEqual(describeState({ state: DomainState.PAUSED, reason: 1 }), "paused (user)");
    assert.strictEqual(describeState({ state: DomainState.CRASHED, reason: 1 }), "crashed (panicked)");
    assert.strictEqual(describeState({ state: DomainState.RUNNING, reason: 5 }), "running");
    assert.strictEqual(describeState({ state: DomainState.RUNNING, reason: 4 }), "running (from snapshot)");
    assert.strictEqual(describeState({ state: 42, reason: 0 }), "state 42 (reason 0)");
  });
});
