// Where a file stores its data: lseek's SEEK_DATA and SEEK_HOLE, which Node.js does not
// offer; the optional dependency fs-ext gives lseek. A sparse image's holes are then
// skipped without being read (reading them as zeros cost more than sending the data).
// Without fs-ext, on another platform or a filesystem that reports no holes, the whole
// file counts as data: its zeros are still found by comparing and sent as holes.

/** lseek's whence values for data and holes, which differ between platforms. */
const WHENCE: Partial<Record<NodeJS.Platform, { data: number; hole: number }>> = {
  linux: { data: 3, hole: 4 },
  freebsd: { data: 3, hole: 4 },
  darwin: { data: 4, hole: 3 },
};

type Lseek = (fd: number, offset: number, whence: number) => number;

function loadLseek(): Lseek | undefined {
  if (!WHENCE[process.platform]) return undefined;
  try {
    return (require("fs-ext") as { seekSync: Lseek }).seekSync;
  } catch {
    return undefined; // not installed (it builds with a C++ toolchain), or not loadable here
  }
}

const lseek = loadLseek();

/** Whether this process can ask the filesystem for a file's holes. */
export function holesReported(): boolean {
  return lseek !== undefined;
}

/** The [start, end) ranges of `fd` that hold data, in order; all of it when holes cannot be asked for. */
export function dataRanges(fd: number, size: number): [number, number][] {
  const whence = WHENCE[process.platform];
  if (!lseek || !whence || size === 0) return [[0, size]];
  const ranges: [number, number][] = [];
  try {
    for (let at = 0; at < size;) {
      const start = lseek(fd, at, whence.data);
      if (start >= size) break;
      const end = Math.min(lseek(fd, start, whence.hole), size);
      ranges.push([start, end]);
      at = end;
    }
  } catch (err) {
    // ENXIO: no data after `at`; anything else: the filesystem cannot say, read it all
    if ((err as NodeJS.ErrnoException).code !== "ENXIO") return [[0, size]];
  }
  return ranges;
}
