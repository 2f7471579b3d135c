// The Java anchor: Ozone's own ofs file system (RootedOzoneFileSystem of Ozone's jars) in a JVM
// of its own, reading the same files with the same offsets and sizes as fastpath's reader
// (java/fastpath/ozoneread/OzoneReadBench.java, compiled with jvm-fixture's javac support against
// the jars tools/ozone resolves). One JSON line per request on stdin, one answer on stdout.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { compileJava, trackChild } from '@fastpath/jvm-fixture';
import { prepareOzoneJars } from '@fastpath/ozone-fixture';
import {
  BenchmarkCheckError,
  BenchmarkProcessError,
  shellQuote,
  type ScenarioContext,
} from '../../harness/index.js';
import type { FileSetSpec } from './fastpath-reader-main.js';
import { READ_ROWS, type ReadCase } from './ozone-read-cases.js';
import type { CaseRound } from './ozone-read-scenario.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';
import { perOpFigures, type WindowCounts } from './read-accounting.js';
import type { ReadCluster } from './read-cluster.js';
import { readPositions, readerSeed } from './read-offsets.js';
import { securityMark } from './security-levels.js';
import { CONTENT_SHIFT_WORDS, fileSeeds } from './file-content.js';
import { expectedWidenedBytes } from './widening.js';
import { withTreeCpu } from '../../harness/process-cpu.js';

/** Heap of the Java reader beyond the files' expected content. */
const JAVA_READER_HEADROOM_MB = 2048;

export interface JavaReader extends AsyncDisposable {
  /** For the report: what ran and how. */
  readonly description: string;
  runCase(c: ReadCase, set: FileSetSpec, round: number): Promise<CaseRound>;
}

interface JavaRun {
  ops: number;
  errors: number;
  wrongBytes: number;
  checkedOps: number;
  measuredMs: number;
  cpuSeconds: number;
  checkMicrosPerRead: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  meanMs: number;
  /** EC block groups read by reconstruction since the case's streams opened; absent where the JVM's count cannot be read. */
  ecReconstructionReads?: number;
  firstError?: string;
}

export async function startJavaReader(
  ctx: ScenarioContext<OzoneReadSettings>,
  cluster: ReadCluster,
): Promise<JavaReader> {
  const s = ctx.flags;
  if (!cluster.omRpcAddress)
    throw new BenchmarkCheckError("the Java anchor needs the OM's Hadoop RPC address (a real cluster)");
  const jars = await prepareOzoneJars({ onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`) });
  const sourceDir = ctx.sourcePath('scenarios/ozone-read/java');
  const compiled = await compileJava({
    sourceDir,
    outDir: ctx.results.path('java-classes'),
    classpath: jars.classpath.split(':'),
  });
  // On a secure cluster: the realm's JVM flags, and with TLS the hosts file and the class path's
  // ozone-site.xml the cluster's own JVMs get.
  const { jvmArgs, classpathPrefix } = cluster.javaArgs;
  const logName = `${securityMark(cluster.level)}java-reader`;
  // The files' expected content is held in the heap once (file-content.ts), as fastpath's reader holds it. Beside
  // it, Ozone's client holds each shared stream's chunk buffers and the gRPC messages of every
  // read in flight: with 16 readers and 1 MiB checksum windows, 512 MiB of headroom ran out of
  // heap (OutOfMemoryError inside the Ratis gRPC reader); 2 GiB does not.
  const heapMb =
    JAVA_READER_HEADROOM_MB + Math.ceil((s.fileSizeBytes + s.files * CONTENT_SHIFT_WORDS * 4) / 1048576);
  const args = [
    `-Xmx${heapMb}m`,
    `-Dlog4j.configuration=file:${jars.log4jConfig}`,
    ...jvmArgs,
    '-cp',
    [compiled.classesDir, ...classpathPrefix, jars.classpath].join(':'),
    'fastpath.ozoneread.OzoneReadBench',
  ];
  ctx.results.recordCommand(
    [jars.javaPath, ...args].map(shellQuote).join(' '),
    "the Java anchor: Ozone's own ofs file system",
  );
  const log = openSync(ctx.results.logPath(logName), 'a');
  // A file descriptor as stderr is outside spawn's typed overloads; stdin and stdout are pipes.
  const child = spawn(jars.javaPath, args, {
    cwd: dirname(sourceDir),
    stdio: ['pipe', 'pipe', log],
  }) as ChildProcessByStdio<Writable, Readable, null>;
  const exited = trackChild(child);
  const lines = createInterface({ input: child.stdout });
  const queue: Array<(line: string) => void> = [];
  lines.on('line', (line) => queue.shift()?.(line));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const waiter of queue.splice(0)) waiter('{"ok":false,"error":"the Java reader exited"}');
  });
  const next = (): Promise<string> =>
    new Promise((resolve) =>
      gone ? resolve('{"ok":false,"error":"the Java reader exited"}') : queue.push(resolve),
    );
  const ready = JSON.parse(await next()) as { ready?: boolean };
  if (!ready.ready) throw new BenchmarkProcessError(`the Java reader did not start; see logs/${logName}.log`);
  const call = async <T>(request: Record<string, unknown>): Promise<T> => {
    const answer = next();
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const parsed = JSON.parse(await answer) as { ok: boolean; error?: string } & T;
    if (!parsed.ok)
      throw new BenchmarkProcessError(`Java reader, ${String(request.op)}: ${parsed.error ?? 'failed'}`);
    return parsed;
  };
  const seeds = fileSeeds(s.files);
  const init = await call<{ ms: number; version: string }>({
    op: 'init',
    omRpcAddress: cluster.omRpcAddress,
    ...(cluster.login && { login: cluster.login }),
    seeds,
    fileSizeBytes: s.fileSizeBytes,
  });
  // Both readers must draw the same offsets: compare the first draws of one seed, both kinds.
  for (const aligned of [false, true]) {
    const spec = { files: s.files, fileSizeBytes: s.fileSizeBytes, readBytes: s.readBytes, aligned };
    const seed = readerSeed(s.seed, 0, 0, 'measure');
    const mine = Array.from({ length: 64 }, readPositions(spec, seed));
    const theirs = await call<{ positions: { file: number; offset: number }[] }>({
      op: 'positions',
      seed: seed | 0,
      count: 64,
      ...spec,
    });
    if (JSON.stringify(theirs.positions) !== JSON.stringify(mine))
      throw new BenchmarkCheckError(
        `the Java reader draws other offsets than fastpath's (aligned ${aligned})`,
      );
  }
  ctx.log(`Java reader: Ozone ${init.version}, expected content built in ${Math.round(init.ms)} ms`);
  let streamClass = '';
  return {
    get description() {
      return (
        `Ozone ${init.version}'s own \`ofs\` file system (\`${streamClass || 'RootedOzoneFileSystem'}\`) in a JVM of its own (-Xmx${heapMb}m), ` +
        `${s.readers} threads sharing one \`FSDataInputStream\` per file, the same offsets (checked: both draw the same first 64 positions) and sizes; ` +
        'verify off by `ozone.client.verify.checksum=false`. Its "off: setVerifyChecksum(false)" column calls Hadoop\'s `FileSystem#setVerifyChecksum(false)`, ' +
        "which Ozone 2.2.0's ofs does not override (the problem HDDS-16783 fixes), so it is expected to read like verify on. Its latency percentiles are exact (sorted samples), " +
        "its CPU is the JVM's process CPU time; the Java client exposes no per-stream byte counters, so its bytes column shows the prediction only." +
        (s.rows.some((r) => READ_ROWS[r].sequential)
          ? " Its sequential rows: as many threads as the row has readers, each drawing the same files as fastpath's, opening an `FSDataInputStream` per file read and reading it start to end with `read(buf, 0, len)` " +
            `of ${s.seqReadBytes / 1024} KiB, streaming ReadBlock by \`ozone.client.stream.readblock.enable=true\` in the rows marked so.`
          : '')
      );
    },
    async runCase(c, set, round) {
      // A sequential row: no shared streams; each whole-file read opens a stream of its own.
      const sequential = c.row.sequential !== undefined;
      const opened = await call<{ fileSystem: string; stream: string }>({
        op: 'open',
        paths: set.paths,
        verify: c.column.verify,
        how: c.column.how,
        shared: !sequential,
        properties: c.readBlock ? { 'ozone.client.stream.readblock.enable': 'true' } : {},
      });
      streamClass = opened.fileSystem;
      const readers = c.row.sequential?.readers ?? s.readers;
      const phase = (p: 'warmup' | 'measure', durationMs: number): Record<string, unknown> => ({
        op: 'run',
        durationMs,
        readBytes: sequential ? s.seqReadBytes : s.readBytes,
        aligned: c.aligned,
        checkEvery: s.checkEvery,
        sequential,
        seeds: Array.from({ length: readers }, (_, i) => readerSeed(s.seed, round, i, p) | 0),
      });
      await call<JavaRun>(phase('warmup', s.warmupMs));
      const { value: run, window: clusterCpu } = await withTreeCpu(cluster.pid, () =>
        call<JavaRun>(phase('measure', s.measureMs)),
      );
      await call({ op: 'close' });
      const attempted = run.ops + run.errors + run.wrongBytes;
      // A whole-file read asks for the file and fetches it (no widening: it covers whole windows).
      const perRead = sequential
        ? s.fileSizeBytes
        : c.column.verify
          ? expectedWidenedBytes(c.row.bytesPerChecksum, s.readBytes)
          : s.readBytes;
      const requested = sequential ? s.fileSizeBytes : s.readBytes;
      const counts: WindowCounts = {
        ops: run.ops,
        errors: run.errors,
        wrongBytes: run.wrongBytes,
        checkedOps: run.checkedOps,
        measuredMs: run.measuredMs,
        bytesRequested: attempted * requested,
        bytesRead: run.ops * requested,
        bytesPredicted: attempted * perRead,
        client: null,
        datanodeBytesSent: null,
        cpuSeconds: run.cpuSeconds,
      };
      if (run.firstError) ctx.log(`${c.id} round ${round + 1}: ${run.firstError}`);
      // An EC case with the datanode down must have read by reconstruction (warm-up included: the
      // client switches a stream's group to its reconstructing reader once), a healthy one never.
      const down = c.row.ec?.dataDatanodeDown === true;
      const rebuilt = run.ecReconstructionReads;
      if (c.row.ec && rebuilt !== undefined && (down ? rebuilt === 0 : rebuilt > 0))
        throw new BenchmarkCheckError(
          `${c.id}: not a ${down ? 'degraded' : 'healthy'} EC case for Ozone's Java client (${rebuilt} block groups read by reconstruction)`,
        );
      return {
        round,
        counts,
        figures: perOpFigures(counts),
        latency: {
          count: attempted,
          minMs: 0,
          meanMs: run.meanMs,
          p50Ms: run.p50Ms,
          p90Ms: 0,
          p99Ms: run.p99Ms,
          p999Ms: run.p999Ms,
          maxMs: run.maxMs,
        },
        checkMicrosPerRead: run.checkMicrosPerRead,
        streamsVerify: [],
        ...(clusterCpu ? { clusterCpu } : {}),
        ...(c.row.ec && rebuilt !== undefined ? { ecReconstructionReads: rebuilt } : {}),
        ...(run.firstError === undefined ? {} : { firstError: run.firstError }),
      };
    },
    async [Symbol.asyncDispose]() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
