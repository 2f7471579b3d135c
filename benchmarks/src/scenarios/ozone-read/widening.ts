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
