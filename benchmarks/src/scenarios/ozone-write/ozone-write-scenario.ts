import os from 'node:os';
import { formatProfileShares, type ProfileSummary } from '../../harness/cpu-profile-summary.js';
import {
  barChartSvg,
  BenchmarkCheckError,
  startChild,
  type ChildHandle,
  type Scenario,
  type ScenarioContext,
} from '../../harness/index.js';
import { withTreeCpu } from '../../harness/process-cpu.js';
import { clientOrder } from '../ratis/load-figures.js';
import type { KeySpec, WriterCall } from './fastpath-writer-main.js';
import { startJavaWriter, type JavaWriter } from './java-writer.js';
import { passFigures, type PassSample } from './pass-figures.js';
import { ozoneWriteReport } from './ozone-write-report.js';
import {
  CLIENT_LABEL,
  compareRow,
  type ClientPass,
  type ClientRow,
  type RowComparison,
  type VerifyCounts,
  type WriteClient,
} from './ozone-write-results.js';
import {
  estimatePassMs,
  keysPerPass,
  OZONE_WRITE_FLAGS,
  parseOzoneWriteFlags,
  ROW_IDS,
  rowLabel,
  type OzoneWriteSettings,
  type RowId,
  type RowShape,
} from './ozone-write-settings.js';
import { startWriteCluster } from './write-cluster.js';

export const OZONE_WRITE_VOLUME = 'ozonewrite';
export const OZONE_WRITE_BUCKET = 'keys';

/** A call's bound: a pass of a large key on a loaded machine can take minutes. */
const CALL_TIMEOUT_MS = 1_800_000;

/** What a pass writes: a row, or a warm-up (RATIS/THREE, EC when EC rows run, streamed when streamed rows run). */
export type PassRow = RowId | 'warmup' | 'warmup-ec' | 'warmup-stream';

/** The warm-up pass's name for its shape's replication and way of writing. */
export function warmupRow(shape: RowShape): PassRow {
  if (shape.replication !== 'THREE') return 'warmup-ec';
  return shape.dataStream ? 'warmup-stream' : 'warmup';
}

/** Content seeds: the same per (row, key index) for both clients and every pass; the warm-ups share theirs. */
export function keySeed(row: PassRow, index: number): number {
  return (row.startsWith('warmup') ? ROW_IDS.length : ROW_IDS.indexOf(row as RowId)) * 100_000 + index + 1;
}

/** The keys one client writes in one pass: distinct names per client and pass, shared seeds. */
export function passKeys(client: WriteClient, pass: string, shape: RowShape, row: PassRow): KeySpec[] {
  return Array.from({ length: keysPerPass(shape) }, (_, i) => ({
    name: `${client}-${pass}-${row}-${String(i).padStart(5, '0')}`,
    seed: keySeed(row, i),
  }));
}

interface Writers {
  fastpath: ChildHandle<WriterCall, unknown>;
  java: JavaWriter | undefined;
  /** The cluster's process (its tree's CPU is read around each write), where known. */
  clusterPid: number | undefined;
}

/** One client's pass: the measured write, then (not measured) the read-backs and the delete. */
async function runPass(
  ctx: ScenarioContext<OzoneWriteSettings>,
  writers: Writers,
  client: WriteClient,
  shape: RowShape,
  row: PassRow,
  pass: number,
  profileFile?: string,
): Promise<ClientPass & { profile?: ProfileSummary }> {
  const s = ctx.flags;
  const label = profileFile ? 'profile' : pass === 0 ? 'warmup' : `p${pass}`;
  const keys = passKeys(client, label, shape, row);
  const what = `${profileFile ? 'profiled pass' : pass === 0 ? 'warm-up' : `pass ${pass}/${s.passes}`} · ${rowLabel(shape)} · ${client}`;
  const write: Extract<WriterCall, { op: 'write' }> = {
    op: 'write',
    keys,
    writers: shape.writers,
    sizeBytes: shape.keySizeBytes,
    writeBytes: s.writeBytes,
    replication: shape.replication,
    dataStream: shape.dataStream,
    ...(profileFile ? { profilePath: ctx.results.path(profileFile) } : {}),
  };
  ctx.progress.setDetail(`${what} · writing`);
  const { value: sample, window: cluster } = await withTreeCpu(
    writers.clusterPid,
    async () =>
      (client === 'fastpath'
        ? await writers.fastpath.call(write, { timeoutMs: CALL_TIMEOUT_MS })
        : await writers.java!.call(write, CALL_TIMEOUT_MS)) as PassSample & { profile?: ProfileSummary },
  );
  ctx.progress.setDetail(`${what} · reading back`);
  const verify = {
    op: 'verify',
    keys,
    sizeBytes: shape.keySizeBytes,
    replication: shape.replication,
  } as const;
  const readBack = (await writers.fastpath.call(verify, { timeoutMs: CALL_TIMEOUT_MS })) as VerifyCounts;
  const crossRead =
    client === 'fastpath' && writers.java && s.crossRead
      ? ((await writers.java.call(verify, CALL_TIMEOUT_MS)) as VerifyCounts)
      : null;
  await writers.fastpath.call(
    { op: 'delete', names: keys.map((k) => k.name) },
    { timeoutMs: CALL_TIMEOUT_MS },
  );
  const { latenciesUs: _latencies, profile, ...counts } = sample;
  for (const [label, problem] of [
    ['write', sample.firstError],
    ['read-back', readBack.firstError],
    ["Java's read-back", crossRead?.firstError],
  ] as const)
    if (problem) ctx.note(`${what}: ${label} failed: ${problem.split('\n')[0]}`);
  return {
    pass,
    sample: counts,
    figures: passFigures(sample),
    readBack,
    crossRead,
    ...(cluster ? { cluster } : {}),
    ...(profile ? { profile } : {}),
  };
}

export const ozoneWriteScenario: Scenario<OzoneWriteSettings> = {
  name: 'ozone-write',
  title: "Ozone key writes: fastpath's client against Ozone's own Java client",
  description:
    'Keys written through the key output stream to RATIS/THREE pipelines (WriteChunk and PutBlock through each ' +
    "pipeline's Raft group, a watch per PutBlock, CommitKey) in three shapes: 1 writer × 256 MiB, 16 writers × 16 MiB, " +
    '16 writers × 32 keys of 64 KiB (the shape of HBase flushes and small files). With `--cluster real`, Apache ' +
    "Ozone's MiniOzoneCluster, fastpath's client (Node, its own process) and Ozone's own Java client (its own JVM) " +
    'writing the same key shapes under distinct names, pass by pass, the clients taking turns going first. Per row ' +
    'and client: MiB/s and keys/s of the pass, p50/p99 per key (CreateKey to the commit), client process CPU per MiB, ' +
    'errors; every key is read back whole by fastpath with checksums verified and compared with what was written, and ' +
    "fastpath's keys also by Ozone's Java client. The default run is the embedded mini cluster, fastpath alone. " +
    'Asked for by `--rows`, two erasure-coded rows: the 16-writer and 1-writer shapes as rs-3-2-1024k keys (the cluster ' +
    'then gets 5 datanodes).',
  flags: OZONE_WRITE_FLAGS,
  parseFlags: (args, { quick }) => parseOzoneWriteFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    const shapes = s.rows.map((id) => s.shapes[id]);
    const clients: WriteClient[] = s.java ? ['fastpath', 'java'] : ['fastpath'];
    ctx.results.writeConfig({ scenario: 'ozone-write', quick: ctx.quick, settings: s });
    const loadAtStart = os.loadavg();
    const setupUnits = s.cluster === 'real' ? 90_000 : 10_000;
    const warmupUnits = s.warmups.reduce((ms, w) => ms + estimatePassMs(w), 0);
    ctx.progress.begin(
      'ozone-write',
      setupUnits +
        clients.length * (warmupUnits + s.passes * shapes.reduce((ms, sh) => ms + estimatePassMs(sh), 0)) +
        (s.profile ? shapes.reduce((ms, sh) => ms + estimatePassMs(sh), 0) : 0),
    );
    ctx.progress.setDetail(`starting the ${s.cluster} cluster`);
    await using cluster = await startWriteCluster(ctx);
    await using fastpath = startChild<WriterCall, unknown>(
      ctx.sourcePath('scenarios/ozone-write/fastpath-writer-main.ts'),
      {
        name: 'fastpath-writer',
        logFile: ctx.results.logPath('fastpath-writer'),
        onSpawn: (c) =>
          ctx.results.recordCommand(c, "fastpath's writer (the client under test) in its own process"),
        env: { NODE_OPTIONS: '--max-old-space-size=4096' },
      },
    );
    await fastpath.ready;
    await fastpath.call(
      {
        op: 'open',
        omAddress: cluster.omAddress,
        volume: OZONE_WRITE_VOLUME,
        bucket: OZONE_WRITE_BUCKET,
        ...(s.ratisGrpcChannel === undefined ? {} : { config: { ratisGrpcChannel: s.ratisGrpcChannel } }),
        properties: s.clientProperties,
      },
      { timeoutMs: 120_000 },
    );
    const contents: Array<readonly [PassRow, RowShape]> = [
      ...shapes.map((sh) => [sh.id, sh] as const),
      ...s.warmups.map((w) => [warmupRow(w), w] as const),
    ];
    const contentBytes = contents.reduce((n, [, sh]) => n + keysPerPass(sh) * sh.keySizeBytes, 0);
    ctx.progress.setDetail(`building the keys' content (${Math.round(contentBytes / 1048576)} MiB)`);
    await using java =
      s.java && cluster.omRpcAddress
        ? await startJavaWriter(
            ctx,
            { omRpcAddress: cluster.omRpcAddress, volume: OZONE_WRITE_VOLUME, bucket: OZONE_WRITE_BUCKET },
            contentBytes,
          )
        : undefined;
    for (const [row, sh] of contents) {
      const prepare = {
        op: 'prepare',
        seeds: Array.from({ length: keysPerPass(sh) }, (_, i) => keySeed(row, i)),
        sizeBytes: sh.keySizeBytes,
      } as const;
      await fastpath.call(prepare, { timeoutMs: 600_000 });
      await java?.call(prepare, 600_000);
    }
    ctx.progress.advance(setupUnits);
    const writers: Writers = { fastpath, java, clusterPid: cluster.pid };

    for (const warmup of s.warmups) {
      for (const client of clients) {
        const w = await runPass(ctx, writers, client, warmup, warmupRow(warmup), 0);
        ctx.note(
          `warm-up, ${CLIENT_LABEL[client]}: ${w.sample.keys} keys of ${rowLabel(warmup)}, ${w.figures ? `${w.figures.mibPerSec.toFixed(1)} MiB/s` : 'nothing committed'}`,
        );
        ctx.progress.advance(estimatePassMs(warmup));
      }
    }

    const measured = new Map<RowId, Partial<Record<WriteClient, ClientRow>>>(
      shapes.map((sh) => [sh.id, Object.fromEntries(clients.map((c) => [c, { passes: [] }]))]),
    );
    const compared = new Map<RowId, RowComparison>();
    for (let pass = 1; pass <= s.passes; pass++) {
      for (const shape of shapes) {
        const rowRuns = measured.get(shape.id)!;
        for (const client of clientOrder(pass, ['fastpath', 'java'] as const).filter((c) =>
          clients.includes(c),
        )) {
          const mine = rowRuns[client]!;
          if (ctx.signal.aborted || mine.error !== undefined) {
            ctx.progress.advance(estimatePassMs(shape));
            continue;
          }
          try {
            const p = await runPass(ctx, writers, client, shape, shape.id, pass);
            mine.passes.push(p);
            const f = p.figures;
            ctx.note(
              `pass ${pass}/${s.passes} · ${rowLabel(shape)} · ${client}: ` +
                (f
                  ? `${f.mibPerSec.toFixed(1)} MiB/s, ${f.keysPerSec.toFixed(1)} keys/s, p99 ${f.p99Ms.toFixed(0)} ms, CPU ${f.cpuMsPerMiB.toFixed(1)} ms/MiB`
                  : 'nothing committed') +
                `, errors ${p.sample.errors}, verified ${p.readBack.verified}/${keysPerPass(shape)}` +
                (p.crossRead ? `, Java verified ${p.crossRead.verified}` : ''),
            );
          } catch (err) {
            mine.error = `pass ${pass}: ${(err as Error).message}`;
            ctx.note(`${rowLabel(shape)}: ${client} stopped: ${(err as Error).message.split('\n')[0]}`);
          }
          ctx.results.writeCase(`${shape.id}-${client}`, { row: shape.id, shape, client, ...mine });
          const c = compareRow(shape, rowRuns);
          compared.set(shape.id, c);
          ctx.results.recordComparison(shape.id, c);
          ctx.progress.advance(estimatePassMs(shape));
        }
      }
    }
    if (s.profile) {
      for (const shape of shapes) {
        if (ctx.signal.aborted || measured.get(shape.id)!.fastpath!.error !== undefined) continue;
        const file = `profiles/${shape.id}-fastpath.cpuprofile`;
        try {
          const p = await runPass(ctx, writers, 'fastpath', shape, shape.id, s.passes + 1, file);
          if (p.profile) {
            ctx.note(`${rowLabel(shape)}: fastpath's profile: ${formatProfileShares(p.profile)} (${file})`);
            ctx.results.writeJson(`profiles/${shape.id}-fastpath.json`, { ...p.profile, file });
          }
        } catch (err) {
          ctx.note(
            `${rowLabel(shape)}: fastpath's profiled pass failed: ${(err as Error).message.split('\n')[0]}`,
          );
        }
        ctx.progress.advance(estimatePassMs(shape));
      }
    }
    ctx.progress.end();
    const loadAtEnd = os.loadavg();
    ctx.results.writeJson('load-average.json', { loadAtStart, loadAtEnd, cores: os.cpus().length });
    const rows = shapes.flatMap((sh) => compared.get(sh.id) ?? []);
    const charted = rows.filter((r) => clients.every((c) => r.clients[c] !== undefined));
    if (charted.length > 0)
      await ctx.results.writeChart(
        'ozone-write-throughput',
        'MiB/s by row: fastpath against Ozone’s Java client',
        barChartSvg({
          title: 'Key writes, MiB/s by row',
          categories: charted.map((r) => r.label),
          series: clients.map((client) => ({
            name: CLIENT_LABEL[client],
            points: charted.map((r) => {
              const m = r.clients[client]!.mibPerSec;
              return { value: m.median, min: m.min, max: m.max };
            }),
          })),
          yLabel: 'MiB/s',
        }),
      );
    const markdown = ozoneWriteReport(rows, {
      quick: ctx.quick,
      settings: s,
      cluster: cluster.description,
      javaVersion: java?.version,
      javaHeapMb: java?.heapMb,
      loadAtStart,
      loadAtEnd,
    });
    const problems = rows.reduce((n, r) => n + r.problems, 0);
    const stopped = rows.flatMap((r) => Object.keys(r.stopped));
    if (problems > 0 || stopped.length > 0) {
      ctx.results.writeReport(markdown);
      throw new BenchmarkCheckError(
        `${problems} key write(s) or read-back(s) failed${stopped.length ? `, ${stopped.length} client row(s) stopped` : ''}; see the report and case files`,
      );
    }
    return { markdown, summary: markdown };
  },
};
