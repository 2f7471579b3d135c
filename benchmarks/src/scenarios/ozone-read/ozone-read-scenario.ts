import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LatencyRecorder, type LatencySummary } from '@fastpath/core';
import {
  BenchmarkCheckError,
  startChild,
  type ChildHandle,
  type Scenario,
  type ScenarioContext,
} from '../../harness/index.js';
import type { FileSetSpec, ReaderCall, RunResult } from './fastpath-reader-main.js';
import type { DataReplicaHolder } from './ec-data-replica.js';
import {
  fileSetId,
  planCases,
  roundOrder,
  roundUnits,
  type ReadCase,
  type ReaderKind,
  type ReadRow,
} from './ozone-read-cases.js';
import { ozoneReadReport } from './ozone-read-report.js';
import { OZONE_READ_FLAGS, parseOzoneReadFlags, type OzoneReadSettings } from './ozone-read-settings.js';
import { perOpFigures, type PerOpFigures, type WindowCounts } from './read-accounting.js';
import { startReadCluster, type ReadCluster } from './read-cluster.js';
import { fatalReadFailures, headlineEntries } from './ozone-read-results.js';
import { readPathProperties, type ShortCircuitAvailability } from './short-circuit-availability.js';
import { startJavaReader } from './java-reader.js';
import { startS3Reader } from './s3-reader.js';
import type { ProfileSummary } from '../../harness/cpu-profile-summary.js';
import { withTreeCpu, type TreeCpuWindow } from '../../harness/process-cpu.js';
import { startBenchmarkKdc, type BenchmarkKdc } from './cluster-security.js';
import { fileSeeds } from './file-content.js';
import { anySecure, SECURITY_LEVEL_LABEL, securityMark, type SecurityLevel } from './security-levels.js';

/** One measured window of one case. */
export interface CaseRound {
  round: number;
  counts: WindowCounts;
  figures: PerOpFigures;
  latency: LatencySummary;
  /** µs spent comparing one read with the known content (0 for the Java reader, which reports it in `counts`). */
  checkMicrosPerRead: number;
  /** What the streams said about their own verify flag. */
  streamsVerify: boolean[];
  /** ReadChunk bytes the datanodes sent over gRPC in the window (null where not counted). */
  grpcBytesSent?: number | null;
  /**
   * The cluster's process tree over the measured window's call (read from /proc by the scenario):
   * its CPU and the call's wall time; absent where it cannot be read.
   */
  clusterCpu?: TreeCpuWindow;
  /**
   * The Java reader on EC files: block groups its client read through its reconstructing reader
   * since the case's streams opened (Ozone's `XceiverClientMetrics`), warm-up included.
   */
  ecReconstructionReads?: number;
  firstError?: string;
  /**
   * fastpath's reader: its CPU by category in the profiled window after this round's measured one
   * (first round), over `threads` threads (the main thread and any read workers).
   */
  profile?: ProfileSummary & { file: string; threads?: number };
}

/** Every round of one case, as written to `cases/<id>.json`. */
export interface CaseResult {
  id: string;
  reader: ReadCase['reader'];
  row: ReadRow['id'];
  column: ReadCase['column']['id'];
  aligned: boolean;
  transport: ReadCase['transport'];
  readWorkers: ReadCase['readWorkers'];
  /** Read with streaming ReadBlock (absent in results written before the ReadBlock rows: ReadChunk). */
  readBlock?: ReadCase['readBlock'];
  /** fastpath's HTTP/2 frame size when one of the run's further sizes (absent: the run's first). */
  frameBytes?: number;
  /** The cluster's security level, in a run with `--security` (absent: none). */
  security?: SecurityLevel;
  rounds: CaseRound[];
}

/** Ozone's block size: an EC file's internal blocks, and so d × this many key bytes per block group. */
const BLOCK_BYTES = 256 * 1024 * 1024;

function fileSet(s: OzoneReadSettings, row: ReadRow): FileSetSpec {
  const bucket = fileSetId(row);
  const ec = row.ec;
  return {
    paths: Array.from(
      { length: s.files },
      (_, i) => `/ozoneread/${bucket}/file-${String(i).padStart(2, '0')}`,
    ),
    seeds: fileSeeds(s.files),
    fileSizeBytes: s.fileSizeBytes,
    bytesPerChecksum: row.bytesPerChecksum,
    ...(ec && {
      ec: {
        replication: ec.replication,
        dataUnits: ec.dataUnits,
        parityUnits: ec.parityUnits,
        cellBytes: ec.cellBytes,
        groupBytes: ec.dataUnits * BLOCK_BYTES,
      },
    }),
  };
}

export const ozoneReadScenario: Scenario<OzoneReadSettings> = {
  name: 'ozone-read',
  title: 'Ozone positional reads: verify on, off by the global setting, off per instance (HDDS-16783)',
  description:
    '64 KiB random positional reads (`readFully(pos, buf, 0, len)`) by 16 concurrent readers on one shared input ' +
    "stream per file, 16 files of 64 MiB per bytes-per-checksum setting, through fastpath's ofs file system. Rows: " +
    'gRPC and short-circuit reads with 1 MiB and 16 KiB bytes per checksum; columns: verify on, off by ' +
    '`ozone.client.verify.checksum=false`, off by `setVerifyChecksum(false)` on the instance. Per case: operations/s ' +
    '(3 s warm-up, 8 s measured, median and min-max of 3 rounds), bytes fetched and checksummed per read against the ' +
    "widening arithmetic, client CPU, HDR latency, errors, and every read compared with the file's known content. " +
    "`--cluster real` reads Apache Ozone's MiniOzoneCluster instead, with Ozone's own Java client beside fastpath's; " +
    'with `--security` once per level, each on a cluster of its own, all up at once and paired case by case (Kerberos; ' +
    'Kerberos with privacy and datanode TLS), both ' +
    "clients logged in from the Kerberos user's keytab, and each client's secure ÷ unsecured figures reported. " +
    '`--rows seq-1,seq-16`: whole files read start to end by 1 and by 16 readers, a stream per file read, fastpath on ' +
    "ReadChunk and on streaming ReadBlock beside Ozone's Java client with ReadBlock off and on: files/s, MiB/s, client CPU per MiB.",
  flags: OZONE_READ_FLAGS,
  parseFlags: (args, { quick }) => parseOzoneReadFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    const caseMs = s.warmupMs + s.measureMs + 600;
    const setupUnits = 30_000;
    ctx.progress.begin(
      'ozone-read',
      s.security.reduce((n, level) => n + setupUnits + s.rounds * plannedCaseCount(s, level) * caseMs, 0),
    );
    await using kdc = anySecure(s.security) ? await startBenchmarkKdc(ctx) : undefined;

    // One reader process for every level: the files' expected content is built once.
    await using reader = startChild<ReaderCall, unknown>(
      ctx.sourcePath('scenarios/ozone-read/fastpath-reader-main.ts'),
      {
        name: 'fastpath-reader',
        logFile: ctx.results.logPath('fastpath-reader'),
        onSpawn: (c) =>
          ctx.results.recordCommand(c, "fastpath's reader (the client under test) in its own process"),
        // libkrb5 in the reader reads the realm from its environment (secure levels).
        env: { NODE_OPTIONS: `--max-old-space-size=${4096}`, ...kdc?.clientEnv },
      },
    );
    await reader.ready;
    if (s.readerCpus !== undefined) {
      await reader.call({ op: 'pin', cpus: s.readerCpus });
      ctx.note(`fastpath's reader pinned to CPU(s) ${s.readerCpus}`);
    }
    const expect = (await reader.call(
      { op: 'expect', seeds: fileSeeds(s.files), fileSizeBytes: s.fileSizeBytes },
      { timeoutMs: 600_000 },
    )) as { ms: number; checkMicros: number };
    ctx.log(`expected content of ${s.files} files built in ${Math.round(expect.ms)} ms`);

    const all: CaseResult[] = [];
    // Every level's cluster up at once (about 2 GB of memory and 2 GiB of files each), so that
    // their cases pair.
    const open: OpenLevel[] = [];
    try {
      for (const level of s.security) {
        if (ctx.signal.aborted) throw new Error('interrupted');
        open.push(
          await openLevel(
            ctx,
            level,
            kdc,
            reader,
            expect,
            all,
            open.map((l) => l.run),
          ),
        );
      }
      await runPairedRounds(ctx, open);
    } finally {
      for (const l of [...open].reverse()) await l[Symbol.asyncDispose]();
    }
    const levels = open.map((l) => l.run);
    ctx.progress.end();
    const first = levels[0]!;
    const multi = s.security.length > 1 || first.level !== 'none';
    const report = await ozoneReadReport(ctx, all, {
      cluster: levels.map((l) => l.cluster).join(' | '),
      setup: multi ? Object.fromEntries(levels.map((l) => [l.level, l.setup])) : first.setup,
      shortCircuit: first.shortCircuit,
      java: levels.find((l) => l.java !== undefined)?.java,
      s3: levels.find((l) => l.s3 !== undefined)?.s3,
      contentCheckMicrosPerRead: expect.checkMicros,
    });
    // The anchors' failed reads are in the report ("Reads the anchors failed"); wrong bytes
    // anywhere and fastpath's failed reads fail the run.
    const bad = fatalReadFailures(all);
    if (bad > 0) {
      ctx.results.writeReport(report.markdown);
      throw new BenchmarkCheckError(
        `${bad} read(s) returned wrong bytes or failed in fastpath's reader; see the case files`,
      );
    }
    return report;
  },
};

/** What one security level's cluster gave the report. */
interface LevelRun {
  level: SecurityLevel;
  cluster: string;
  setup: Record<string, unknown>;
  shortCircuit: ShortCircuitAvailability;
  java: string | undefined;
  s3: string | { notRun: string } | undefined;
}

/** The cases a level plans before its cluster says what it offers (for the progress estimate). */
function plannedCaseCount(s: OzoneReadSettings, level: SecurityLevel): number {
  const readers: ReaderKind[] = ['fastpath'];
  if (s.java) readers.push('java');
  if (s.s3 && level === 'none') readers.push('s3');
  return planCases({
    rows: s.cluster === 'real' ? s.rows.filter((r) => !r.startsWith('sc-')) : s.rows,
    aligned: s.aligned,
    readers,
    transports: s.transports,
    readWorkers: s.readWorkers,
    readModes: s.readModes,
    extraFrameSizes: s.http2MaxFrameBytes.slice(1),
  }).length;
}

/** One level's cluster with its files written and warm, its Java and S3 readers, and its cases. */
interface OpenLevel extends AsyncDisposable {
  readonly run: LevelRun;
  /** The level's cases, each with the id it has at every level (`baseId`) beside its own. */
  readonly cases: readonly (ReadCase & { baseId: string })[];
  /** Runs one case's window of `round` (0-based) and records it. */
  runCase(c: ReadCase, round: number): Promise<void>;
  /**
   * Stops (`true`) or starts again (`false`) the datanode holding a data replica of every EC
   * file, around the cases of the rows with a datanode down; nothing when the level has none.
   */
  setDataDatanodeDown(down: boolean): Promise<void>;
}

/**
 * Opens one security level: its cluster, the files written, the Java and S3 readers, its cases
 * planned (results appended to `all` as they come).
 */
async function openLevel(
  ctx: ScenarioContext<OzoneReadSettings>,
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
  reader: ChildHandle<ReaderCall, unknown>,
  expected: { ms: number; checkMicros: number },
  all: CaseResult[],
  earlier: readonly LevelRun[],
): Promise<OpenLevel> {
  const s = ctx.flags;
  const mark = securityMark(level);
  const multi = s.security.length > 1 || level !== 'none';
  const at = multi ? ` (${SECURITY_LEVEL_LABEL[level]})` : '';
  ctx.note(`starting the ${s.cluster} cluster${at}`);
  const cluster = await startReadCluster(ctx, level, kdc);
  const owned: AsyncDisposable[] = [cluster];
  const dispose = async (): Promise<void> => {
    for (const d of [...owned].reverse()) await d[Symbol.asyncDispose]();
  };
  try {
    const sc = cluster.shortCircuit;
    const rows = s.rows.filter((r) => !r.startsWith('sc-') || sc.available);
    // Ozone's S3 gateway beside the cluster; when it cannot be had, the row is left out and the report says why.
    const s3 = s.s3 ? await cluster.s3() : undefined;
    if (s3 && !s3.available) ctx.note(`S3 gateway row not run${at}: ${s3.reason}`);
    const readers: ReaderKind[] = ['fastpath'];
    if (s.java) readers.push('java');
    if (s3?.available) readers.push('s3');
    const cases = planCases({
      rows,
      aligned: s.aligned,
      readers,
      transports: s.transports,
      readWorkers: s.readWorkers,
      readModes: s.readModes,
      extraFrameSizes: s.http2MaxFrameBytes.slice(1),
    }).map((c) => ({ ...c, baseId: c.id, id: `${mark}${c.id}` }));
    const firstLevel = earlier[0];
    ctx.results.writeConfig({
      scenario: 'ozone-read',
      quick: ctx.quick,
      settings: s,
      cases: [...all.map((c) => c.id), ...cases.map((c) => c.id)],
      shortCircuit: firstLevel?.shortCircuit ?? sc,
      s3Gateway:
        s3 === undefined ? null : s3.available ? { endpoint: s3.gateway.endpoint } : { reason: s3.reason },
    });
    if (!sc.available && s.rows.some((r) => r.startsWith('sc-')))
      ctx.note(`short-circuit rows not run: ${sc.reason}`);
    const caseMs = s.warmupMs + s.measureMs + 600;
    const setupUnits = 30_000;
    const sets = new Map<string, FileSetSpec>();
    for (const c of cases) if (!sets.has(fileSetId(c.row))) sets.set(fileSetId(c.row), fileSet(s, c.row));
    const setup: Record<string, unknown> = {
      contentCheckMicrosPerRead: expected.checkMicros,
      cluster: cluster.description,
      expectedContentMs: expected.ms,
      writes: [] as unknown[],
    };
    const fileCount = [...sets.values()].reduce((n, set) => n + set.paths.length, 0);
    for (const set of sets.values()) {
      // One file per call, so the progress line moves while 2 GiB are written.
      let written = { bytes: 0, ms: 0, by: '' };
      for (let i = 0; i < set.paths.length; i++) {
        ctx.progress.setDetail(
          `writing file ${i + 1}/${set.paths.length}${at} (${set.fileSizeBytes / 1048576} MiB, ${set.bytesPerChecksum} bytes per checksum${set.ec ? `, ${set.ec.replication}` : ''})`,
        );
        const one = { ...set, paths: [set.paths[i]!], seeds: [set.seeds[i]!] };
        const w = await cluster.writeSet(one, reader);
        written = { bytes: written.bytes + w.bytes, ms: written.ms + w.ms, by: w.by };
        ctx.progress.advance(setupUnits / 2 / fileCount);
      }
      (setup.writes as unknown[]).push({
        bytesPerChecksum: set.bytesPerChecksum,
        ...(set.ec && { replication: set.ec.replication }),
        ...written,
      });
      ctx.note(
        `wrote ${written.bytes / 1048576} MiB with ${set.bytesPerChecksum} bytes per checksum${set.ec ? `, ${set.ec.replication},` : ''} by ${written.by}${at} in ${(written.ms / 1000).toFixed(1)} s`,
      );
    }
    // The rows with a datanode down: the datanode holding one data replica index of every EC file.
    const downRow = cases.find((c) => c.row.ec?.dataDatanodeDown)?.row;
    let holder: DataReplicaHolder | undefined;
    if (downRow) {
      holder = await cluster.dataReplicaHolder(sets.get(fileSetId(downRow))!);
      setup.ecDatanodeDown = { ...holder, rows: [downRow.id] };
      ctx.note(
        `${downRow.id}: datanode ${holder.datanodeUuid} holds replica ${holder.replicaIndex} (data) of every ${downRow.ec!.replication} file; it is stopped for that row's cases`,
      );
    }
    setup.pageCacheWarmBytes = await cluster.warm();
    ctx.results.writeJson(`${mark}setup.json`, setup);
    ctx.progress.advance(setupUnits / 2);

    const java = s.java ? await startJavaReader(ctx, cluster) : undefined;
    if (java) owned.push(java);
    const s3Reader = s3?.available ? await startS3Reader(ctx, s3, fileSeeds(s.files)) : undefined;
    if (s3Reader) owned.push(s3Reader);
    const results = new Map<string, CaseResult>(
      cases.map((c) => [
        c.id,
        {
          id: c.id,
          reader: c.reader,
          row: c.row.id,
          column: c.column.id,
          aligned: c.aligned,
          transport: c.transport,
          readWorkers: c.readWorkers,
          readBlock: c.readBlock,
          ...(c.frameBytes !== undefined && { frameBytes: c.frameBytes }),
          ...(multi ? { security: level } : {}),
          rounds: [],
        },
      ]),
    );
    all.push(...results.values());
    const runCase = async (c: ReadCase, round: number): Promise<void> => {
      ctx.progress.setDetail(`round ${round + 1}/${s.rounds} · ${c.id}`);
      const set = sets.get(fileSetId(c.row))!;
      const r =
        c.reader === 'java'
          ? await java!.runCase(c, set, round)
          : c.reader === 's3'
            ? await s3Reader!.runCase(c, set, round)
            : await runFastpathCase(ctx, cluster, reader, c, set, round, sc, holder);
      const result = results.get(c.id)!;
      result.rounds.push(r);
      ctx.results.writeCase(c.id, result);
      ctx.results.recordComparison(c.id, caseEntry(result));
      ctx.results.recordComparison(
        'headline',
        headlineEntries(all.filter((x) => (x.security ?? 'none') === 'none')),
      );
      const f = r.figures;
      if (c.row.sequential)
        ctx.note(
          `${c.id} round ${round + 1}: ${f.opsPerSec.toFixed(2)} files/s, ${f.mibPerSec.toFixed(1)} MiB/s, ` +
            `${f.cpuMicrosPerMiB.toFixed(0)} µs CPU/MiB, errors ${r.counts.errors + r.counts.wrongBytes}`,
        );
      else
        ctx.note(
          `${c.id} round ${round + 1}: ${Math.round(f.opsPerSec)} ops/s, ${Math.round(f.bytesPredictedPerOp / 1024)} KiB predicted/op` +
            `${f.datanodeSentPerOp !== null ? `, datanodes sent ${Math.round(f.datanodeSentPerOp / 1024)} KiB/op` : ''}, errors ${r.counts.errors + r.counts.wrongBytes}`,
        );
      ctx.progress.advance(caseMs);
    };
    return {
      run: {
        level,
        cluster: cluster.description,
        setup,
        shortCircuit: sc,
        java: java?.description,
        s3: s3Reader?.description ?? (s3 && !s3.available ? { notRun: s3.reason } : undefined),
      },
      cases,
      runCase,
      async setDataDatanodeDown(down) {
        if (!holder) return;
        const started = performance.now();
        if (down) await cluster.stopDatanode(holder.datanodeUuid);
        else await cluster.restartDatanode(holder.datanodeUuid);
        ctx.log(
          `datanode ${holder.datanodeUuid}${at} ${down ? 'stopped' : 'started again'} in ${Math.round(performance.now() - started)} ms`,
        );
      },
      [Symbol.asyncDispose]: dispose,
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/**
 * Every level's rounds, the levels paired case by case: within a round each case runs on every
 * level back to back (the levels taking turns going first), so that a slow spell of the machine
 * or of a cluster falls on both sides of a secure ÷ unsecured ratio, not on one level's whole
 * run. A case a level does not have (the S3 row on a secure cluster) is left out there.
 */
async function runPairedRounds(
  ctx: ScenarioContext<OzoneReadSettings>,
  levels: readonly OpenLevel[],
): Promise<void> {
  const s = ctx.flags;
  const order: string[] = [];
  for (const l of levels) for (const c of l.cases) if (!order.includes(c.baseId)) order.push(c.baseId);
  const down = (baseId: string): boolean =>
    levels.some((l) => l.cases.some((c) => c.baseId === baseId && c.row.ec?.dataDatanodeDown === true));
  const setDown = async (value: boolean): Promise<void> => {
    for (const l of levels) await l.setDataDatanodeDown(value);
  };
  for (let round = 0; round < s.rounds; round++) {
    let i = 0;
    for (const unit of roundUnits(order, round, down)) {
      // The rows with a datanode down run back to back, for every reader alike: the datanode
      // stops before the first of their cases and starts again after the last.
      if (unit.down) await setDown(true);
      try {
        for (const baseId of unit.items) {
          for (const l of roundOrder(levels, round + i)) {
            if (ctx.signal.aborted) throw new Error('interrupted');
            const c = l.cases.find((x) => x.baseId === baseId);
            if (c) await l.runCase(c, round);
          }
          i++;
        }
      } catch (err) {
        if (unit.down)
          await setDown(false).catch((e: unknown) => ctx.log(`starting the datanode again: ${String(e)}`));
        throw err;
      }
      if (unit.down) await setDown(false);
    }
  }
}

/** The per-case line of comparison.json: medians so far. */
function caseEntry(c: CaseResult): Record<string, unknown> {
  const ops = c.rounds.map((r) => r.figures.opsPerSec);
  const sorted = [...ops].sort((a, b) => a - b);
  const last = c.rounds[c.rounds.length - 1]!;
  return {
    reader: c.reader,
    row: c.row,
    column: c.column,
    aligned: c.aligned,
    transport: c.reader === 'fastpath' ? c.transport : null,
    readWorkers: c.reader === 'fastpath' ? c.readWorkers : null,
    readBlock: c.readBlock === true,
    frameBytes: c.reader === 'fastpath' ? (c.frameBytes ?? null) : null,
    rounds: c.rounds.length,
    cpuMicrosPerRead: c.rounds.map((r) => r.figures.cpuMicrosPerOp),
    opsPerSec: ops,
    medianOpsPerSec: sorted[(sorted.length - 1) >> 1] ?? null,
    mibPerSec: c.rounds.map((r) => r.figures.mibPerSec),
    cpuMicrosPerMiB: c.rounds.map((r) => r.figures.cpuMicrosPerMiB),
    bytesPredictedPerOp: last.figures.bytesPredictedPerOp,
    clientFetchedPerOp: last.figures.clientFetchedPerOp,
    datanodeSentPerOp: last.figures.datanodeSentPerOp,
    p99Ms: last.latency.p99Ms,
    errors: c.rounds.reduce((n, r) => n + r.counts.errors + r.counts.wrongBytes, 0),
  };
}

async function runFastpathCase(
  ctx: ScenarioContext<OzoneReadSettings>,
  cluster: ReadCluster,
  reader: ChildHandle<ReaderCall, unknown>,
  c: ReadCase,
  set: FileSetSpec,
  round: number,
  sc: ShortCircuitAvailability,
  holder: DataReplicaHolder | undefined,
): Promise<CaseRound> {
  const s = ctx.flags;
  const down = c.row.ec?.dataDatanodeDown === true;
  const sequential = c.row.sequential !== undefined;
  if (down && !holder) throw new BenchmarkCheckError(`${c.id}: no datanode was chosen to stop`);
  const frameBytes = c.frameBytes ?? s.http2MaxFrameBytes[0];
  const opened = (await reader.call({
    op: 'open',
    omAddress: cluster.omAddress,
    set,
    verify: c.column.verify,
    how: c.column.how,
    ...(cluster.login && { login: cluster.login }),
    ...(down && holder && { lostReplicaIndexes: [holder.replicaIndex] }),
    ...(sequential && { sequential }),
    properties: {
      ...readPathProperties(sc, c.row.path),
      'ozone.client.datanode.transport': c.transport,
      'ozone.client.read.worker.threads': String(c.readWorkers),
      // The positional ReadBlock rows stream every read, whatever its size: they measure ReadBlock
      // itself. The sequential rows keep the client's default: their reads stream as sequential ones.
      ...(c.readBlock ? { 'ozone.client.stream.readblock.enable': 'true' } : {}),
      ...(c.readBlock && !sequential ? { 'ozone.client.stream.readblock.positional.min.size': '0' } : {}),
      ...(frameBytes === undefined
        ? {}
        : { 'ozone.client.datanode.http2.max.frame.size': String(frameBytes) }),
      ...s.clientProperties,
    },
  })) as { verify: boolean[] };
  if (opened.verify.some((v) => v !== c.column.verify))
    throw new BenchmarkCheckError(
      `${c.id}: streams opened with verify ${opened.verify.join(',')}, not ${c.column.verify}`,
    );
  const phase = (
    p: 'warmup' | 'measure' | 'profile',
    durationMs: number,
  ): Extract<ReaderCall, { op: 'run' }> => ({
    op: 'run',
    phase: p,
    durationMs,
    readers: c.row.sequential?.readers ?? s.readers,
    readBytes: sequential ? s.seqReadBytes : s.readBytes,
    aligned: c.aligned,
    seed: s.seed,
    round,
    checkEvery: c.row.path === 'short-circuit' ? s.checkEveryShortCircuit : s.checkEvery,
    ...(sequential && { sequential }),
  });
  // A sequential window also finishes the files its readers began.
  const timeoutMs = s.warmupMs + s.measureMs + s.readTimeoutMs * (sequential ? 2 : 1) + 60_000;
  const warm = (await reader.call(phase('warmup', s.warmupMs), { timeoutMs })) as RunResult;
  if (warm.counts.errors + warm.counts.wrongBytes > 0) ctx.log(`${c.id} warm-up: ${warm.firstError ?? ''}`);
  const sentBefore = await cluster.bytesSent();
  const { value: run, window: clusterCpu } = await withTreeCpu(
    cluster.pid,
    async () => (await reader.call(phase('measure', s.measureMs), { timeoutMs })) as RunResult,
  );
  const sentAfter = await cluster.bytesSent();
  let profile: CaseRound['profile'];
  if (s.profile && round === 0) {
    const file = `profiles/${c.id}.cpuprofile`;
    mkdirSync(dirname(ctx.results.path(file)), { recursive: true });
    const profiled = (await reader.call(
      { ...phase('profile', Math.min(s.measureMs, 4000)), profilePath: ctx.results.path(file) },
      { timeoutMs },
    )) as RunResult;
    if (profiled.profile) profile = { ...profiled.profile, file };
  }
  await reader.call({ op: 'close' });
  // A sequential case opens its streams as it reads: their verify flags are checked here.
  if (sequential && run.streamsVerify.some((v) => v !== c.column.verify))
    throw new BenchmarkCheckError(
      `${c.id}: streams opened with verify ${run.streamsVerify.join(',')}, not ${c.column.verify}`,
    );
  const grpcBytesSent = sentBefore === null || sentAfter === null ? null : sentAfter - sentBefore;
  const shortCircuit = c.row.path === 'short-circuit';
  const client = run.counts.client;
  // A short-circuit case must have read every range from a passed block file: a read that fell
  // back to gRPC (or went there) would make the row another path's.
  if (
    shortCircuit &&
    client &&
    (!client.shortCircuitReads || client.shortCircuitFallbacks || client.readChunkCalls || grpcBytesSent)
  )
    throw new BenchmarkCheckError(
      `${c.id}: not a short-circuit window (${client.shortCircuitReads ?? 0} short-circuit reads, ` +
        `${client.shortCircuitFallbacks ?? 0} fallbacks, ${client.readChunkCalls} ReadChunk calls, ${grpcBytesSent ?? '?'} bytes over gRPC)`,
    );
  // A ReadBlock case must have streamed every read, a ReadChunk case none.
  if (
    client &&
    !shortCircuit &&
    (c.readBlock ? !client.readBlockCalls || client.readChunkCalls : client.readBlockCalls)
  )
    throw new BenchmarkCheckError(
      `${c.id}: not a ${c.readBlock ? 'ReadBlock' : 'ReadChunk'} window (${client.readBlockCalls ?? 0} ReadBlock, ${client.readChunkCalls} ReadChunk calls)`,
    );
  // An EC case with the datanode down must have rebuilt cells, a healthy one none.
  if (client && c.row.ec && (down ? !client.ecStripesRebuilt : client.ecStripesRebuilt))
    throw new BenchmarkCheckError(
      `${c.id}: not a ${down ? 'degraded' : 'healthy'} EC window (${client.ecStripesRebuilt ?? 0} stripes rebuilt)`,
    );
  if (!shortCircuit && client?.shortCircuitReads)
    throw new BenchmarkCheckError(
      `${c.id}: a gRPC case read ${client.shortCircuitReads} ranges by short-circuit`,
    );
  const counts: WindowCounts = {
    ...run.counts,
    // Short-circuit reads cross no datanode socket: the datanodes' gRPC counters stay at 0 (checked above).
    datanodeBytesSent: shortCircuit ? null : grpcBytesSent,
  };
  if (run.firstError) ctx.log(`${c.id} round ${round + 1}: ${run.firstError}`);
  return {
    round,
    counts,
    figures: perOpFigures(counts),
    latency: LatencyRecorder.fromBase64(run.latency).summary(),
    checkMicrosPerRead: run.checkMicrosPerRead,
    streamsVerify: run.streamsVerify,
    grpcBytesSent,
    ...(clusterCpu ? { clusterCpu } : {}),
    ...(run.firstError === undefined ? {} : { firstError: run.firstError }),
    ...(profile ? { profile } : {}),
  };
}
