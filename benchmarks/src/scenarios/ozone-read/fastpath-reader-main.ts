// fastpath's reader, in its own process: 16 (or --readers) concurrent loops of positional
// `readFully(pos, buf, 0, len)` on one shared OzoneFSInputStream per file, every read compared
// with the file's known content. The scenario drives it phase by phase (open, warm-up, measure,
// close); between phases no read is in flight, so counters read in between cover one phase exactly.
// The sequential rows' readers instead read whole files start to end with cursor reads, each file
// on a stream of its own opened for it and closed after it.
import { execFileSync } from 'node:child_process';
import { LatencyRecorder } from '@fastpath/core';
import {
  newFileSystemInstance,
  type OzoneFSInputStream,
  type OzoneFileSystem,
} from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import type { ClientLogin } from './cluster-security.js';
import type { EcRowLayout } from './ozone-read-cases.js';
import { emptyWindowCounts, type WindowCounts } from './read-accounting.js';
import { fileContents } from './file-content.js';
import { readPositions, readerSeed } from './read-offsets.js';
import {
  predictEcFetchedBytes,
  predictFetchedBytes,
  type EcWideningLayout,
  type WideningLayout,
} from './widening.js';
import type { ProfileSummary } from '../../harness/cpu-profile-summary.js';
import { runProfiled } from '../../harness/thread-profiles.js';

export interface FileSetSpec {
  /** ofs paths below the file system's root: `/<volume>/<bucket>/<key>`. */
  paths: string[];
  /** Seed of each file's content (contractKeyBytes). */
  seeds: number[];
  fileSizeBytes: number;
  bytesPerChecksum: number;
  /** Erasure-coded files: their layout; absent: RATIS/THREE files of 4 MiB chunks and 256 MiB blocks. */
  ec?: FileSetEcLayout;
}

/** An EC file set's layout, as written on either cluster. */
export interface FileSetEcLayout {
  /** Ozone's text form (`rs-3-2-1024k`). */
  replication: EcRowLayout['replication'];
  dataUnits: number;
  parityUnits: number;
  cellBytes: number;
  /** Key bytes per block group: data units × the internal block size. */
  groupBytes: number;
}

export type ReaderCall =
  | {
      op: 'write';
      omAddress: string;
      set: FileSetSpec;
    }
  | { op: 'expect'; seeds: number[]; fileSizeBytes: number }
  | {
      op: 'open';
      omAddress: string;
      set: FileSetSpec;
      verify: boolean;
      how: 'configuration' | 'instance';
      /** Extra client properties of the row (the read path). */
      properties: Record<string, string>;
      /** On a secure cluster: the Kerberos user to log in as from its keytab, the security keys, TLS. */
      login?: ClientLogin;
      /** EC files: the data replica indexes whose datanode is down (the prediction rebuilds them). */
      lostReplicaIndexes?: number[];
      /** A sequential row: no shared streams; each whole-file read opens a stream of its own. */
      sequential?: boolean;
    }
  | {
      op: 'run';
      phase: 'warmup' | 'measure' | 'profile';
      durationMs: number;
      /** With phase 'profile': where to write the window's CPU profile (`.cpuprofile`). */
      profilePath?: string;
      readers: number;
      readBytes: number;
      aligned: boolean;
      seed: number;
      round: number;
      checkEvery: number;
      /**
       * Whole-file reads: each reader draws a file (as the positional readers draw theirs), reads it
       * start to end with `read(buf)` of `readBytes`, and starts another while the window is open;
       * the window lasts until every reader has finished the file it began.
       */
      sequential?: boolean;
    }
  | { op: 'close' }
  /** Pins this process, every thread of it now and later, to `cpus` (taskset's CPU list). */
  | { op: 'pin'; cpus: string };

export interface WriteResult {
  bytes: number;
  ms: number;
}

export interface RunResult {
  counts: WindowCounts;
  latency: string;
  /** Time spent comparing reads with the expected content, per checked read, in µs. */
  checkMicrosPerRead: number;
  /** The streams' verify flag as they report it (what the column asked for, checked). */
  streamsVerify: boolean[];
  firstError?: string;
  /** With phase 'profile': the window's CPU by category, over every thread of the reader. */
  profile?: ProfileSummary & { threads: number };
}

const CHUNK = 4 * 1024 * 1024;
const BLOCK = 256 * 1024 * 1024;

/** The expected content of every file index: one copy shared by the rows (same seeds). */
let expected: Buffer[] = [];
/** The same buffers by content seed, for the writer. */
let expectedBySeed = new Map<number, Buffer>();
let fs: OzoneFileSystem | undefined;
let streams: OzoneFSInputStream[] = [];
/** The files a sequential case reads (no shared streams then). */
let paths: string[] = [];
let layout: WideningLayout | undefined;
/** With EC files, their layout (the prediction's). */
let ecLayout: EcWideningLayout | undefined;
let verify = true;

function fileSystem(
  omAddress: string,
  properties: Record<string, string>,
  login?: ClientLogin,
): OzoneFileSystem {
  if (login === undefined) return newFileSystemInstance(`ofs://${omAddress}/`, { properties });
  // A secure cluster: its security keys under the row's, the Kerberos user from its keytab (this
  // process has no ticket cache), and with TLS the CA and the datanodes' certificate name.
  return newFileSystemInstance(`ofs://${omAddress}/`, {
    properties: { ...login.properties, ...properties },
    security: { kerberos: { principal: login.principal, keytab: login.keytab } },
    ...(login.tls && { tls: login.tls }),
  });
}

type ClientTotals = Required<NonNullable<WindowCounts['client']>>;

function zeroTotals(): ClientTotals {
  return {
    bytesFetched: 0,
    bytesVerified: 0,
    bytesFromCache: 0,
    readChunkCalls: 0,
    readBlockCalls: 0,
    shortCircuitReads: 0,
    shortCircuitFallbacks: 0,
    ecStripesRebuilt: 0,
    ecBytesRebuilt: 0,
  };
}

/** Adds one stream's counters to `t`. */
function addStats(t: ClientTotals, s: OzoneFSInputStream): void {
  t.ecStripesRebuilt += s.stats.ecStripesRebuilt;
  t.ecBytesRebuilt += s.stats.ecBytesRebuilt;
  t.shortCircuitReads += s.stats.shortCircuitReads;
  t.shortCircuitFallbacks += s.stats.shortCircuitFallbacks;
  t.bytesFetched += s.stats.bytesFetched;
  t.bytesVerified += s.stats.bytesVerified;
  t.bytesFromCache += s.stats.bytesFromCache;
  t.readChunkCalls += s.stats.readChunkCalls;
  t.readBlockCalls += s.stats.readBlockCalls;
}

function clientTotals(): ClientTotals {
  const t = zeroTotals();
  for (const s of streams) addStats(t, s);
  return t;
}

/** `after − before`, counter by counter. */
function totalsSince(after: ClientTotals, before: ClientTotals): ClientTotals {
  const d = zeroTotals();
  for (const k of Object.keys(d) as (keyof ClientTotals)[]) d[k] = after[k] - before[k];
  return d;
}

async function write(omAddress: string, set: FileSetSpec): Promise<WriteResult> {
  // EC files are laid out by the embedded cluster's own striper (or Ozone's Java writer), not here.
  if (set.ec) throw new Error(`${set.ec.replication} files are written by the cluster, not the reader`);
  const started = performance.now();
  const writer = fileSystem(omAddress, {});
  try {
    for (let i = 0; i < set.paths.length; i++) {
      const out = await writer.create(set.paths[i]!, {
        bytesPerChecksum: set.bytesPerChecksum,
        checksumType: 'CRC32',
        sizeBytes: set.fileSizeBytes,
      });
      const seed = set.seeds[i]!;
      const content = expectedBySeed.get(seed) ?? contractKeyBytes(set.fileSizeBytes, seed);
      for (let o = 0; o < content.length; o += CHUNK) await out.write(content.subarray(o, o + CHUNK));
      await out.close();
    }
  } finally {
    writer.close();
  }
  return { bytes: set.paths.length * set.fileSizeBytes, ms: performance.now() - started };
}

async function run(call: Extract<ReaderCall, { op: 'run' }>): Promise<RunResult> {
  if (!layout || streams.length === 0) throw new Error('run before open');
  const spec = {
    files: streams.length,
    fileSizeBytes: layout.fileSizeBytes,
    readBytes: call.readBytes,
    aligned: call.aligned,
  };
  const latency = new LatencyRecorder();
  const counts = emptyWindowCounts();
  let checkNs = 0n;
  let firstError: string | undefined;
  const before = clientTotals();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endMs = started + call.durationMs;
  const wl = layout;
  const ec = ecLayout;
  const predict = (offset: number): number =>
    ec
      ? predictEcFetchedBytes(ec, offset, call.readBytes, verify)
      : predictFetchedBytes(wl, offset, call.readBytes, verify);
  const reader = async (index: number): Promise<void> => {
    const next = readPositions(spec, readerSeed(call.seed, call.round, index, call.phase));
    const buffer = Buffer.allocUnsafe(call.readBytes);
    let n = 0;
    while (performance.now() < endMs) {
      const { file, offset } = next();
      const stream = streams[file]!;
      const began = performance.now();
      counts.bytesPredicted += predict(offset);
      counts.bytesRequested += call.readBytes;
      try {
        await stream.readFully(offset, buffer, 0, call.readBytes);
      } catch (err) {
        counts.errors++;
        firstError ??= `${(err as Error).name}: ${(err as Error).message}`;
        continue;
      }
      latency.recordMs(performance.now() - began);
      if (n++ % call.checkEvery === 0) {
        const t0 = process.hrtime.bigint();
        const want = expected[file]!.subarray(offset, offset + call.readBytes);
        const same = buffer.equals(want);
        checkNs += process.hrtime.bigint() - t0;
        counts.checkedOps++;
        if (!same) {
          counts.wrongBytes++;
          firstError ??= `file ${file} at ${offset}: the bytes read differ from the file's content`;
          continue;
        }
      }
      counts.ops++;
    }
  };
  await Promise.all(Array.from({ length: call.readers }, (_, i) => reader(i)));
  counts.measuredMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  counts.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  counts.client = totalsSince(clientTotals(), before);
  counts.bytesRead = counts.ops * call.readBytes;
  return {
    counts,
    latency: latency.toBase64(),
    checkMicrosPerRead: counts.checkedOps ? Number(checkNs) / 1000 / counts.checkedOps : 0,
    streamsVerify: streams.map((s) => s.verifyChecksum),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/**
 * A sequential window: each reader draws a file (the positional readers' draw, so Java's reader
 * draws the same files), opens a stream for it (the client's defaults: its window cache, and with
 * ReadBlock on, one streaming ReadBlock per block), reads it start to end with cursor reads of
 * `readBytes`, compares every byte with the file's content (every `checkEvery`-th file), closes it
 * and draws the next while the window is open. A file begun is finished: the window's time runs
 * until the last reader is done, so files/s and MiB/s count whole files only. The client's
 * counters are each stream's, summed as it closes.
 */
async function runSequential(call: Extract<ReaderCall, { op: 'run' }>): Promise<RunResult> {
  const files = fs;
  if (!files || !layout || paths.length === 0) throw new Error('run before open');
  const size = layout.fileSizeBytes;
  // The file is the positional draw's; the offset half of each draw is not used.
  const spec = { files: paths.length, fileSizeBytes: size, readBytes: 1, aligned: false };
  const latency = new LatencyRecorder();
  const counts = emptyWindowCounts();
  const totals = zeroTotals();
  /** The verify flags the streams opened with (each checked against the column by the scenario). */
  const verifyFlags = new Set<boolean>();
  let checkNs = 0n;
  let firstError: string | undefined;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endMs = started + call.durationMs;
  const reader = async (index: number): Promise<void> => {
    const next = readPositions(spec, readerSeed(call.seed, call.round, index, call.phase));
    const buffer = Buffer.allocUnsafe(call.readBytes);
    let n = 0;
    while (performance.now() < endMs) {
      const { file } = next();
      const want = expected[file]!;
      const check = n++ % call.checkEvery === 0;
      counts.bytesRequested += size;
      counts.bytesPredicted += size;
      const began = performance.now();
      let stream: OzoneFSInputStream | undefined;
      let read = 0;
      let same = true;
      try {
        stream = await files.open(paths[file]!);
        verifyFlags.add(stream.verifyChecksum);
        for (;;) {
          const got = await stream.read(buffer, 0, buffer.length);
          if (got < 0) break;
          if (check && same) {
            const t0 = process.hrtime.bigint();
            same = read + got <= size && buffer.subarray(0, got).equals(want.subarray(read, read + got));
            checkNs += process.hrtime.bigint() - t0;
          }
          read += got;
        }
      } catch (err) {
        counts.errors++;
        firstError ??= `${(err as Error).name}: ${(err as Error).message}`;
        continue;
      } finally {
        if (stream) {
          addStats(totals, stream);
          stream.close();
        }
      }
      latency.recordMs(performance.now() - began);
      if (check) counts.checkedOps++;
      if (read !== size || !same) {
        counts.wrongBytes++;
        firstError ??=
          read !== size
            ? `file ${file}: read ${read} bytes to its end, not ${size}`
            : `file ${file}: the bytes read differ from the file's content`;
        continue;
      }
      counts.ops++;
    }
  };
  await Promise.all(Array.from({ length: call.readers }, (_, i) => reader(i)));
  counts.measuredMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  counts.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  counts.client = totals;
  counts.bytesRead = counts.ops * size;
  return {
    counts,
    latency: latency.toBase64(),
    checkMicrosPerRead: counts.checkedOps ? Number(checkNs) / 1000 / counts.checkedOps : 0,
    streamsVerify: [...verifyFlags],
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/**
 * What the content check costs on its own, in µs per 64 KiB read: the fastest of 5 batches of 200
 * compares (the fastest, because on a shared machine a batch's wall time also holds the time the
 * process was not running). The in-window figure of each case is wall time, preemption included.
 */
function calibrateCheck(fileSizeBytes: number): number {
  const file = expected[0];
  if (!file) return 0;
  const length = Math.min(64 * 1024, fileSizeBytes);
  const copy = Buffer.from(file.subarray(0, length));
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const t0 = process.hrtime.bigint();
    let same = 0;
    for (let i = 0; i < 200; i++) if (copy.equals(file.subarray(0, length))) same++;
    const us = Number(process.hrtime.bigint() - t0) / 1000 / 200;
    if (same === 200) best = Math.min(best, us);
  }
  return best;
}

/** A window of its own under the profiler on every thread of the reader (see {@link runProfiled}). */
async function profiled(call: Extract<ReaderCall, { op: 'run' }>, path: string): Promise<RunResult> {
  const { result, profile } = await runProfiled(path, () =>
    call.sequential ? runSequential(call) : run(call),
  );
  return { ...result, profile };
}

function closeAll(): void {
  for (const s of streams) s.close();
  streams = [];
  paths = [];
  fs?.close();
  fs = undefined;
}

serveCalls<ReaderCall, unknown>(async (call) => {
  switch (call.op) {
    case 'expect': {
      const started = performance.now();
      expected = fileContents(call.seeds, call.fileSizeBytes);
      expectedBySeed = new Map(call.seeds.map((seed, i) => [seed, expected[i]!]));
      return { ms: performance.now() - started, checkMicros: calibrateCheck(call.fileSizeBytes) };
    }
    case 'write':
      return write(call.omAddress, call.set);
    case 'open': {
      closeAll();
      const properties: Record<string, string> = { ...call.properties };
      if (!call.verify && call.how === 'configuration') properties['ozone.client.verify.checksum'] = 'false';
      fs = fileSystem(call.omAddress, properties, call.login);
      if (call.how === 'instance') fs.setVerifyChecksum(call.verify);
      verify = call.verify;
      // No window cache: every read goes to a datanode, so each costs what the widening arithmetic
      // says. A sequential case opens a stream per file read instead, with the client's defaults.
      if (call.sequential) paths = [...call.set.paths];
      else streams = await Promise.all(call.set.paths.map((p) => fs!.open(p, { windowCacheBytes: 0 })));
      layout = {
        fileSizeBytes: call.set.fileSizeBytes,
        chunkSizeBytes: CHUNK,
        blockSizeBytes: BLOCK,
        bytesPerChecksum: call.set.bytesPerChecksum,
      };
      const ec = call.set.ec;
      ecLayout = ec && {
        fileSizeBytes: call.set.fileSizeBytes,
        bytesPerChecksum: call.set.bytesPerChecksum,
        dataUnits: ec.dataUnits,
        parityUnits: ec.parityUnits,
        cellBytes: ec.cellBytes,
        groupBytes: ec.groupBytes,
        lostReplicaIndexes: call.lostReplicaIndexes ?? [],
      };
      return { verify: call.sequential ? [fs.getVerifyChecksum()] : streams.map((s) => s.verifyChecksum) };
    }
    case 'run':
      if (call.phase === 'profile' && call.profilePath) return profiled(call, call.profilePath);
      return call.sequential ? runSequential(call) : run(call);
    case 'close':
      closeAll();
      return {};
    case 'pin':
      // -a: the threads that exist now; threads started later inherit the mask of their creator.
      execFileSync('taskset', ['-a', '-cp', call.cpus, String(process.pid)], { stdio: 'ignore' });
      return {};
  }
});
