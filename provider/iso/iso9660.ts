// A minimal ISO 9660 writer with Joliet names, enough for a NoCloud seed: one root
// directory of small files. The primary tree carries 8.3 names (USER_DAT.;1); the
// Joliet tree carries the real names (user-data), which is what Linux mounts show.
// Layout: system area (16 sectors), primary and Joliet volume descriptors, terminator,
// four path tables, two root directories, then the file data.

const SECTOR = 2048;

export interface IsoFile {
  name: string;
  data: Buffer;
}

export interface IsoOptions {
  volumeId: string;
  /** Recording date stamped everywhere (fixed, so equal content gives equal bytes). */
  date?: Date;
}

function both16(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt16LE(v, 0);
  b.writeUInt16BE(v, 2);
  return b;
}

function both32(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(v, 0);
  b.writeUInt32BE(v, 4);
  return b;
}

function padded(s: string, len: number): Buffer {
  return Buffer.from(s.padEnd(len, " ").slice(0, len), "ascii");
}

function ucs2(s: string, len?: number): Buffer {
  const b = Buffer.alloc(s.length * 2);
  for (let i = 0; i < s.length; i++) b.writeUInt16BE(s.charCodeAt(i), i * 2);
  if (len === undefined) return b;
  const out = Buffer.alloc(len);
  for (let i = 0; i + 1 < len; i += 2) out.writeUInt16BE(0x20, i); // UCS-2 spaces
  b.copy(out, 0, 0, Math.min(len - (len % 2), b.length));
  return out;
}

/** 7-byte directory record date. */
function dirDate(d: Date): Buffer {
  return Buffer.from([d.getUTCFullYear() - 1900, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0]);
}

/** 17-byte volume descriptor date. */
function volDate(d: Date): Buffer {
  const p = (n: number, w: number) => String(n).padStart(w, "0");
  const s = `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1, 2)}${p(d.getUTCDate(), 2)}${p(d.getUTCHours(), 2)}${p(d.getUTCMinutes(), 2)}${p(d.getUTCSeconds(), 2)}00`;
  return Buffer.concat([Buffer.from(s, "ascii"), Buffer.from([0])]);
}

function dirRecord(extent: number, size: number, isDir: boolean, name: Buffer, date: Date): Buffer {
  const len = 33 + name.length + (name.length % 2 === 0 ? 1 : 0);
  const r = Buffer.alloc(len);
  r[0] = len;
  both32(extent).copy(r, 2);
  both32(size).copy(r, 10);
  dirDate(date).copy(r, 18);
  r[25] = isDir ? 2 : 0;
  both16(1).copy(r, 28);
  r[32] = name.length;
  name.copy(r, 33);
  return r;
}

/** ISO 9660 level 1 name: uppercase d-characters, 8.3, ";1". */
export function primaryName(name: string, taken: Set<string>): string {
  const clean = (s: string) => s.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
  const dot = name.lastIndexOf(".");
  const base = clean(dot > 0 ? name.slice(0, dot) : name).slice(0, 8) || "FILE";
  const ext = dot > 0 ? clean(name.slice(dot + 1)).slice(0, 3) : "";
  let candidate = `${base}.${ext}`;
  for (let i = 1; taken.has(candidate); i++) candidate = `${base.slice(0, 8 - String(i).length)}${i}.${ext}`;
  taken.add(candidate);
  return candidate;
}

export function buildIso(files: IsoFile[], opts: IsoOptions): Buffer {
  const date = opts.date ?? new Date(Date.UTC(2000, 0, 1));
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const f of sorted) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(f.name)) throw new Error(`ISO file name "${f.name}" is not supported`);
  }
  const taken = new Set<string>();
  const primary = sorted.map((f) => primaryName(f.name, taken));

  const pvdAt = 16,
    svdAt = 17,
    termAt = 18,
    ptL = 19,
    ptM = 20,
    jptL = 21,
    jptM = 22,
    rootAt = 23,
    jrootAt = 24;
  let next = 25;
  const extents = sorted.map((f) => {
    const at = next;
    next += Math.max(1, Math.ceil(f.data.length / SECTOR));
    return at;
  });
  const totalSectors = next;

  const image = Buffer.alloc(totalSectors * SECTOR);
  const dirSelf = (at: number) => [dirRecord(at, SECTOR, true, Buffer.from([0]), date), dirRecord(at, SECTOR, true, Buffer.from([1]), date)];
  const writeDir = (at: number, names: Buffer[]) => {
    const records = [...dirSelf(at), ...sorted.map((f, i) => dirRecord(extents[i], f.data.length, false, names[i], date))];
    const dir = Buffer.concat(records);
    if (dir.length > SECTOR) throw new Error("too many files for a one-sector directory");
    dir.copy(image, at * SECTOR);
  };
  writeDir(
    rootAt,
    primary.map((n) => Buffer.from(`${n};1`, "ascii")),
  );
  writeDir(
    jrootAt,
    sorted.map((f) => ucs2(f.name)),
  );
  sorted.forEach((f, i) => f.data.copy(image, extents[i] * SECTOR));

  const pathTable = (root: number, bigEndian: boolean) => {
    const t = Buffer.alloc(10);
    t[0] = 1;
    if (bigEndian) {
      t.writeUInt32BE(root, 2);
      t.writeUInt16BE(1, 6);
    } else {
      t.writeUInt32LE(root, 2);
      t.writeUInt16LE(1, 6);
    }
    return t;
  };
  pathTable(rootAt, false).copy(image, ptL * SECTOR);
  pathTable(rootAt, true).copy(image, ptM * SECTOR);
  pathTable(jrootAt, false).copy(image, jptL * SECTOR);
  pathTable(jrootAt, true).copy(image, jptM * SECTOR);

  const descriptor = (at: number, joliet: boolean) => {
    const d = image.subarray(at * SECTOR, (at + 1) * SECTOR);
    d[0] = joliet ? 2 : 1;
    d.write("CD001", 1, "ascii");
    d[6] = 1;
    if (joliet) {
      ucs2("", 32).copy(d, 8);
      ucs2(opts.volumeId.slice(0, 16), 32).copy(d, 40);
      Buffer.from("%/E", "ascii").copy(d, 88); // UCS-2 level 3
    } else {
      padded("LINUX", 32).copy(d, 8);
      padded(opts.volumeId, 32).copy(d, 40);
    }
    both32(totalSectors).copy(d, 80);
    both16(1).copy(d, 120);
    both16(1).copy(d, 124);
    both16(SECTOR).copy(d, 128);
    both32(10).copy(d, 132);
    d.writeUInt32LE(joliet ? jptL : ptL, 140);
    d.writeUInt32BE(joliet ? jptM : ptM, 148);
    dirRecord(joliet ? jrootAt : rootAt, SECTOR, true, Buffer.from([0]), date).copy(d, 156);
    const text = (s: string, len: number) => (joliet ? ucs2(s, len) : padded(s, len));
    text("", 128).copy(d, 190); // volume set
    text("", 128).copy(d, 318); // publisher
    text("", 128).copy(d, 446); // preparer
    text("PULUMI-KVM", 128).copy(d, 574); // application
    text("", 37).copy(d, 702);
    text("", 37).copy(d, 739);
    text("", 37).copy(d, 776);
    volDate(date).copy(d, 813);
    volDate(date).copy(d, 830);
    Buffer.concat([Buffer.from("0".repeat(16), "ascii"), Buffer.from([0])]).copy(d, 847);
    volDate(date).copy(d, 864);
    d[881] = 1;
  };
  descriptor(pvdAt, false);
  descriptor(svdAt, true);
  const term = image.subarray(termAt * SECTOR);
  term[0] = 255;
  term.write("CD001", 1, "ascii");
  term[6] = 1;
  return image;
}
