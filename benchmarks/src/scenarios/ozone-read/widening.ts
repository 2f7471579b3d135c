// What the datanodes must send for one read, by the widening arithmetic of Ozone's client
// (ChunkInputStream#computeChecksumBoundaries): a read is cut at chunk boundaries, and with
// verification on each chunk's part is widened to whole checksum windows of that chunk (the last
// window may be short: the chunk's end clips it). With verification off exactly the requested
// bytes are fetched. This is the benchmark's independent oracle for the client's own counters and
// the mini cluster's: it is written from the published arithmetic, not from the client's code.

/** The layout that decides the widening: chunk size and bytes per checksum of the file. */
export interface WideningLayout {
  fileSizeBytes: number;
  /** Chunk size of the writer (Ozone: `ozone.client.stream.buffer.size`, 4 MiB). Blocks hold whole chunks. */
  chunkSizeBytes: number;
  /** Block size (Ozone: 256 MiB); a chunk never crosses a block. */
  blockSizeBytes: number;
  bytesPerChecksum: number;
}

/** Bytes fetched (and, with verification on, checksummed) for one read of `length` bytes at `offset`. */
export function predictFetchedBytes(
  layout: WideningLayout,
  offset: number,
  length: number,
  verify: boolean,
): number {
  const end = Math.min(offset + length, layout.fileSizeBytes);
  if (end <= offset) return 0;
  if (!verify) return end - offset;
  const { chunkSizeBytes: chunk, blockSizeBytes: block, bytesPerChecksum: bpc } = layout;
  let fetched = 0;
  let position = offset;
  while (position < end) {
    const blockStart = Math.floor(position / block) * block;
    const blockEnd = Math.min(blockStart + block, layout.fileSizeBytes);
    const chunkStart = blockStart + Math.floor((position - blockStart) / chunk) * chunk;
    const chunkLength = Math.min(chunk, blockEnd - chunkStart);
    const partEnd = Math.min(end, chunkStart + chunkLength);
    // computeChecksumBoundaries, offsets relative to the chunk.
    const start = position - chunkStart;
    const last = partEnd - chunkStart - 1;
    const adjustedStart = Math.floor(start / bpc) * bpc;
    const adjustedEnd = Math.min((Math.floor(last / bpc) + 1) * bpc, chunkLength);
    fetched += adjustedEnd - adjustedStart;
    position = partEnd;
  }
  return fetched;
}

/**
 * The mean bytes fetched per verified read of `length` bytes at a uniformly random byte offset,
 * for the report's "predicted" column: over one checksum window period (start offsets 0..w−1),
 * a read touches floor((s + length − 1) / w) + 1 windows. Exact when the chunk size is a multiple
 * of the window (chunk ends are then window ends), as with Ozone's 4 MiB chunks and 16 KiB or
 * 1 MiB windows. For 64 KiB reads: 1 MiB windows → 1,114,111 B (17.0×), 16 KiB → 81,919 B (1.25×).
 */
export function expectedWidenedBytes(bytesPerChecksum: number, length: number): number {
  const w = bytesPerChecksum;
  const full = Math.floor(length / w);
  const rest = length % w;
  // length = full·w + rest. rest = 0: start 0 touches `full` windows, the w − 1 others one more.
  // rest > 0: every start touches full + 1 windows, and the rest − 1 starts past w − rest one more.
  const windowsOverPeriod = rest === 0 ? full * w + (w - 1) : (full + 1) * w + (rest - 1);
  return windowsOverPeriod; // (windowsOverPeriod / w) windows of w bytes on average
}

/**
 * The layout of an erasure-coded file (Ozone's EC writer: each cell one chunk on the replica of
 * its index, cell k of a group on replica (k mod d) + 1 at stripe ⌊k / d⌋, parity cells as long
 * as the stripe's first data cell), and the data replicas the reader has lost.
 */
export interface EcWideningLayout {
  fileSizeBytes: number;
  bytesPerChecksum: number;
  dataUnits: number;
  parityUnits: number;
  /** The cell (`ecChunkSize`), bytes. */
  cellBytes: number;
  /** Key bytes per block group: data units × the internal block size. */
  groupBytes: number;
  /** Data replica indexes (1..d) lost in every group (their datanode is down): rebuilt, never read. */
  lostReplicaIndexes: readonly number[];
}

/** Bytes fetched for `length` bytes at `start` of a chunk of `chunkLength` bytes (its windows widened when verifying). */
function windowed(start: number, length: number, chunkLength: number, bpc: number, verify: boolean): number {
  if (length <= 0) return 0;
  if (!verify) return length;
  const adjustedStart = Math.floor(start / bpc) * bpc;
  const adjustedEnd = Math.min((Math.floor((start + length - 1) / bpc) + 1) * bpc, chunkLength);
  return adjustedEnd - adjustedStart;
}

/**
 * Bytes fetched (and, verifying, checksummed) for one read of an EC file. A cell whose replica
 * lives is read from it, widened within its chunk as any chunk is. A cell of a lost replica is
 * rebuilt over the span of cell offsets the read needs in that stripe, from d units chosen as
 * Ozone's reconstructing reader chooses them: the data cells (a cell with no bytes at the span is
 * zeros, read from nowhere) whose replicas live, then parity in index order; each unit's part is
 * fetched from its own chunk, widened the same way. fastpath rebuilds only that span (Ozone's Java
 * reader rebuilds whole stripes), which is what this predicts.
 */
export function predictEcFetchedBytes(
  layout: EcWideningLayout,
  offset: number,
  length: number,
  verify: boolean,
): number {
  const end = Math.min(offset + length, layout.fileSizeBytes);
  const { dataUnits: d, parityUnits: p, cellBytes: c, bytesPerChecksum: bpc } = layout;
  const lost = new Set(layout.lostReplicaIndexes);
  const stripeBytes = c * d;
  let fetched = 0;
  for (let pos = offset; pos < end;) {
    const groupStart = Math.floor(pos / layout.groupBytes) * layout.groupBytes;
    const groupLength = Math.min(layout.groupBytes, layout.fileSizeBytes - groupStart);
    const to = Math.min(end, groupStart + groupLength);
    for (let o = pos - groupStart; o < to - groupStart;) {
      const stripe = Math.floor(o / stripeBytes);
      const stripeStart = stripe * stripeBytes;
      const stripeEnd = Math.min(stripeStart + stripeBytes, to - groupStart);
      const stripeData = Math.min(stripeBytes, groupLength - stripeStart);
      const unitBytes = (u: number): number =>
        u < d ? Math.max(0, Math.min(c, stripeData - u * c)) : Math.min(c, stripeData);
      const rebuilt: { offsetInCell: number; length: number }[] = [];
      for (let x = o; x < stripeEnd;) {
        const cell = Math.floor((x - stripeStart) / c);
        const offsetInCell = (x - stripeStart) % c;
        const n = Math.min(c - offsetInCell, stripeEnd - x);
        if (lost.has(cell + 1)) rebuilt.push({ offsetInCell, length: n });
        else fetched += windowed(offsetInCell, n, unitBytes(cell), bpc, verify);
        x += n;
      }
      if (rebuilt.length > 0) {
        const lo = Math.min(...rebuilt.map((r) => r.offsetInCell));
        const span = Math.max(...rebuilt.map((r) => r.offsetInCell + r.length)) - lo;
        const chosen: number[] = [];
        for (let u = 0; u < d; u++) if (unitBytes(u) <= lo || !lost.has(u + 1)) chosen.push(u);
        for (let u = d; u < d + p && chosen.length < d; u++) if (!lost.has(u + 1)) chosen.push(u);
        if (chosen.length < d)
          throw new RangeError(
            `stripe ${stripe}: ${chosen.length} of ${d} units left, the file cannot be read`,
          );
        for (const u of chosen)
          fetched += windowed(lo, Math.min(span, Math.max(0, unitBytes(u) - lo)), unitBytes(u), bpc, verify);
      }
      o = stripeEnd;
    }
    pos = to;
  }
  return fetched;
}
