// Per-operation accounting of one measured window: what the readers did, what the client says it
// fetched and checksummed, what the datanodes say they sent, and how far each is from the
// widening arithmetic's prediction for the very reads that ran.

/** Totals of one measured window, as the reader process and the cluster counted them. */
export interface WindowCounts {
  /**
   * Reads that completed with the right bytes inside the window: positional reads, or for the
   * sequential rows whole files read start to end.
   */
  ops: number;
  /** Reads that failed (an error thrown). */
  errors: number;
  /** Reads that returned bytes other than the file's known content. */
  wrongBytes: number;
  /** Reads whose bytes were compared with the known content (all of them unless sampling). */
  checkedOps: number;
  measuredMs: number;
  /** Bytes the readers asked for (attempted reads × read size; sequential rows: × the file size). */
  bytesRequested: number;
  /**
   * Bytes the good reads delivered (`ops` × the bytes of one read). Absent (results written before
   * it was counted): taken from `bytesRequested` per attempted read.
   */
  bytesRead?: number;
  /** Σ over the window's reads of the widening arithmetic's bytes (widening.ts). */
  bytesPredicted: number;
  /** The client's own counters (KeyInputStream stats), summed over the shared streams; null when the client has none (Java). */
  client: {
    bytesFetched: number;
    bytesVerified: number;
    bytesFromCache: number;
    readChunkCalls: number;
    /** Streaming ReadBlock requests (the ReadBlock rows). */
    readBlockCalls?: number;
    /** Chunk ranges read from a block file passed over the datanode's domain socket. */
    shortCircuitReads?: number;
    /** Short-circuit failures that sent a read to gRPC. */
    shortCircuitFallbacks?: number;
    /** EC files: stripes (the parts reads needed) rebuilt from other units, a data replica being lost. */
    ecStripesRebuilt?: number;
    /** EC files: key bytes delivered from rebuilt cells. */
    ecBytesRebuilt?: number;
  } | null;
  /** ReadChunk data bytes the datanodes sent, from the cluster's counters; null when the cluster has none. */
  datanodeBytesSent: number | null;
  /** CPU seconds of the reader process (user + system) over the window. */
  cpuSeconds: number;
}

/** A window's counts before its first read. */
export function emptyWindowCounts(): WindowCounts {
  return {
    ops: 0,
    errors: 0,
    wrongBytes: 0,
    checkedOps: 0,
    measuredMs: 0,
    bytesRequested: 0,
    bytesPredicted: 0,
    client: null,
    datanodeBytesSent: null,
    cpuSeconds: 0,
  };
}

/** The per-op view of a window that the report shows. */
export interface PerOpFigures {
  opsPerSec: number;
  bytesRequestedPerOp: number;
  bytesPredictedPerOp: number;
  /** Client-counted bytes fetched per op, and its ratio to the request (the widening factor). */
  clientFetchedPerOp: number | null;
  clientVerifiedPerOp: number | null;
  datanodeSentPerOp: number | null;
  wideningFactor: number | null;
  /** (measured − predicted) / predicted, for the client and the datanode counters. */
  clientDeviation: number | null;
  datanodeDeviation: number | null;
  /** Client CPU per op, in microseconds, and as cores busy. */
  cpuMicrosPerOp: number;
  cpuCores: number;
  /** MiB (2^20 bytes) the good reads delivered per second. */
  mibPerSec: number;
  /** Client CPU per MiB delivered, in microseconds. */
  cpuMicrosPerMiB: number;
}

const MiB = 1024 * 1024;

function perOp(total: number, ops: number): number {
  return ops > 0 ? total / ops : 0;
}

function deviation(measured: number | null, predicted: number): number | null {
  if (measured === null) return null;
  if (predicted === 0) return measured === 0 ? 0 : Infinity;
  return (measured - predicted) / predicted;
}

/**
 * Per-op figures of one window. The counters cover exactly the window's reads (the readers are
 * idle while the counters are read before and after it), so bytes fetched per op can be held to
 * the prediction within rounding; failed reads fetch bytes too, so a window with errors is
 * compared over `ops + errors`.
 */
export function perOpFigures(w: WindowCounts): PerOpFigures {
  const attempted = w.ops + w.errors + w.wrongBytes;
  const clientFetched = w.client ? perOp(w.client.bytesFetched, attempted) : null;
  const datanode = w.datanodeBytesSent === null ? null : perOp(w.datanodeBytesSent, attempted);
  const predicted = perOp(w.bytesPredicted, attempted);
  const requested = perOp(w.bytesRequested, attempted);
  const mib = (w.bytesRead ?? requested * w.ops) / MiB;
  return {
    opsPerSec: w.measuredMs > 0 ? (w.ops * 1000) / w.measuredMs : 0,
    bytesRequestedPerOp: requested,
    bytesPredictedPerOp: predicted,
    clientFetchedPerOp: clientFetched,
    clientVerifiedPerOp: w.client ? perOp(w.client.bytesVerified, attempted) : null,
    datanodeSentPerOp: datanode,
    wideningFactor: requested > 0 ? (datanode ?? clientFetched ?? predicted) / requested : null,
    clientDeviation: deviation(clientFetched, predicted),
    datanodeDeviation: deviation(datanode, predicted),
    cpuMicrosPerOp: perOp(w.cpuSeconds * 1e6, w.ops),
    cpuCores: w.measuredMs > 0 ? w.cpuSeconds / (w.measuredMs / 1000) : 0,
    mibPerSec: w.measuredMs > 0 ? (mib * 1000) / w.measuredMs : 0,
    cpuMicrosPerMiB: mib > 0 ? (w.cpuSeconds * 1e6) / mib : 0,
  };
}

/** Whether every counter present is within `tolerance` (a fraction) of the prediction. */
export function withinPrediction(f: PerOpFigures, tolerance: number): boolean {
  return [f.clientDeviation, f.datanodeDeviation].every((d) => d === null || Math.abs(d) <= tolerance);
}
