import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  barChartSvg,
  BenchmarkCheckError,
  startChild,
  type ChildHandle,
  type Scenario,
  type ScenarioContext,
  type ScenarioReport,
} from '../../harness/index.js';
import { groupsCpuSeconds } from '../../harness/process-cpu.js';
import { withKmsServerBundle, type KmsServerBundle } from '../kms-http/kms-server-bundle.js';
import { KMS_VERSIONS } from '../kms-http/kms-versions.js';
import {
  estimateCaseMs,
  estimateLargeReadsMs,
  largeReadCase,
  OZONE_TDE_FLAGS,
  parseOzoneTdeFlags,
  type OzoneTdeSettings,
  type TdeKmsVersion,
} from './ozone-tde-settings.js';
import { startTdeCase, type TdeCase } from './tde-case.js';
import {
  caseFigures,
  largeClientFigures,
  tdeGoals,
  type LargeFigures,
  type LargeReads,
  type TdeCaseFigures,
  type TdeRound,
} from './tde-figures.js';
import { ozoneTdeReport } from './tde-report.js';
import {
  LARGE_KEY,
  largeKeyBytes,
  largeSumCheck,
  TDE_ENCRYPTED_BUCKET,
  TDE_PLAIN_BUCKET,
  TDE_VOLUME,
  type LargeSample,
  type TdeCall,
  type WindowSample,
} from './tde-workload.js';

/** A call's bound beyond its window: a loaded machine may stall a window's last files. */
const CALL_SLACK_MS = 300_000;
const MiB = 1024 * 1024;

type TdeClient = ChildHandle<TdeCall, unknown>;

async function measureRounds(
  ctx: ScenarioContext<OzoneTdeSettings>,
  client: TdeClient,
  tc: TdeCase,
  label: string,
): Promise<TdeRound[]> {
  const s = ctx.flags;
  const cpu = (): { kms: number | null; cluster: number | null } => {
    const groups = groupsCpuSeconds({ kms: [tc.kms.pid], cluster: tc.clusterPid ? [tc.clusterPid] : [] });
    return { kms: groups['kms'] ?? null, cluster: tc.clusterPid ? (groups['cluster'] ?? null) : null };
  };
  const spent = (a: number | null, b: number | null): number | null =>
    a === null || b === null ? null : b - a;
  // One unmeasured window of each kind first: connections, the KMS's caches and a JVM's JIT (at
  // least kms-http's warm-up for Hadoop's KMS, whose JIT needs load before it settles).
  ctx.progress.setDetail(`${label} · warm-up`);
  const warmupMs = Math.max(s.windowMs / 2, tc.kms.serverWarmupMs);
  for (const op of ['read', 'write'] as const)
    await client.call({ op, windowMs: warmupMs, round: 0 }, { timeoutMs: warmupMs + CALL_SLACK_MS });
  ctx.progress.advance(s.windowMs);
  const rounds: TdeRound[] = [];
  for (let r = 1; r <= s.rounds && !ctx.signal.aborted; r++) {
    ctx.progress.setDetail(`${label} · round ${r}/${s.rounds} · reading`);
    const before = cpu();
    const read = (await client.call(
      { op: 'read', windowMs: s.windowMs, round: r },
      { timeoutMs: s.windowMs + CALL_SLACK_MS },
    )) as WindowSample;
    const after = cpu();
    ctx.progress.advance(s.windowMs, `${label} · round ${r}/${s.rounds} · writing`);
    const write = (await client.call(
      { op: 'write', windowMs: s.windowMs, round: r },
      { timeoutMs: s.windowMs + CALL_SLACK_MS },
    )) as WindowSample;
    ctx.progress.advance(s.windowMs);
    const round: TdeRound = {
      read,
      write,
      kmsReadCpuSeconds: spent(before.kms, after.kms),
      clusterReadCpuSeconds: spent(before.cluster, after.cluster),
    };
    rounds.push(round);
    const perSec = (w: WindowSample): string => ((w.files * 1000) / w.elapsedMs).toFixed(0);
    ctx.note(
      `${label} · round ${r}/${s.rounds}: read ${perSec(read)} files/s, write ${perSec(write)} files/s` +
        (round.kmsReadCpuSeconds === null
          ? ''
          : `, KMS CPU ${((round.kmsReadCpuSeconds * 1000) / Math.max(1, read.files)).toFixed(2)} ms/decrypt`) +
        `, errors ${read.errors + write.errors}`,
    );
  }
  return rounds;
}

/** The large key read whole, encrypted and plain in turn (which goes first alternating), by each client. */
async function measureLarge(
  ctx: ScenarioContext<OzoneTdeSettings>,
  client: TdeClient,
  tc: TdeCase,
): Promise<LargeFigures> {
  const s = ctx.flags;
  const expected = largeKeyBytes(s.largeBytes);
  const sumCheck = largeSumCheck(expected);
  const sha256 = createHash('sha256').update(expected).digest('hex');
  const fastpath: LargeReads = { encryptedMiBPerSec: [], plainMiBPerSec: [] };
  const java: LargeReads = { encryptedMiBPerSec: [], plainMiBPerSec: [] };
  const mibPerSec = (ms: number): number => s.largeBytes / MiB / (ms / 1000);
  const buckets = [TDE_ENCRYPTED_BUCKET, TDE_PLAIN_BUCKET] as const;
  for (let i = 0; i < s.largeReads && !ctx.signal.aborted; i++) {
    ctx.progress.setDetail(`large reads · ${i + 1}/${s.largeReads}`);
    for (const bucket of i % 2 === 0 ? buckets : [...buckets].reverse()) {
      const into = bucket === TDE_ENCRYPTED_BUCKET ? 'encryptedMiBPerSec' : 'plainMiBPerSec';
      const f = (await client.call({ op: 'large', bucket }, { timeoutMs: CALL_SLACK_MS })) as LargeSample;
      if (f.bytes !== s.largeBytes || f.sumCheck !== sumCheck)
        throw new BenchmarkCheckError(`fastpath read ${bucket}/${LARGE_KEY} back as other bytes`);
      fastpath[into].push(mibPerSec(f.elapsedMs));
      if (tc.real && s.java) {
        const t0 = performance.now();
        const j = await tc.real.readKeyWithJava(TDE_VOLUME, bucket, LARGE_KEY);
        const elapsed = performance.now() - t0;
        if (j.bytesRead !== s.largeBytes || j.sha256 !== sha256)
          throw new BenchmarkCheckError(
            `Ozone's Java client read ${bucket}/${LARGE_KEY} back as other bytes`,
          );
        java[into].push(mibPerSec(elapsed));
      }
    }
    ctx.progress.advance(estimateLargeReadsMs(s) / s.largeReads);
  }
  return {
    largeBytes: s.largeBytes,
    fastpath: largeClientFigures(fastpath),
    java: java.encryptedMiBPerSec.length > 0 ? largeClientFigures(java) : null,
  };
}

async function runOzoneTde(
  ctx: ScenarioContext<OzoneTdeSettings>,
  bundle: KmsServerBundle,
): Promise<ScenarioReport> {
  const s = ctx.flags;
  ctx.results.writeConfig({ scenario: 'ozone-tde', quick: ctx.quick, settings: s });
  const loadAtStart = os.loadavg();
  const caseUnits = estimateCaseMs(s);
  ctx.progress.begin('ozone-tde', s.kms.length * caseUnits + estimateLargeReadsMs(s));
  const cases: Partial<Record<TdeKmsVersion, TdeCaseFigures>> = {};
  let large: LargeFigures | null = null;
  let cluster = '';
  for (const version of s.kms) {
    if (ctx.signal.aborted) break;
    const label = KMS_VERSIONS[version].label;
    ctx.progress.setDetail(`${label} · starting ZooKeeper, the KMS and the ${s.cluster} cluster`);
    await using tc = await startTdeCase(ctx, version, bundle);
    cluster = tc.clusterDescription;
    await using client = startChild<TdeCall, unknown>(
      ctx.sourcePath('scenarios/ozone-tde/tde-client-main.ts'),
      {
        name: `tde-clients-${version}`,
        logFile: ctx.results.logPath(`tde-clients-${version}`),
        onSpawn: (c) =>
          ctx.results.recordCommand(c, `fastpath's ${s.clients} clients (the load) in their own process`),
      },
    );
    await client.ready;
    ctx.progress.setDetail(`${label} · writing ${s.files} encrypted files`);
    await client.call(
      {
        op: 'setup',
        omAddress: tc.omAddress,
        kmsUrl: tc.kmsUrl,
        clients: s.clients,
        files: s.files,
        fileBytes: s.fileBytes,
        largeBytes: s.largeBytes,
      },
      { timeoutMs: 1_800_000 },
    );
    const setupUnits = caseUnits - s.rounds * 2 * s.windowMs - s.windowMs;
    ctx.progress.advance(Math.max(0, setupUnits));
    const rounds = await measureRounds(ctx, client, tc, label);
    if (rounds.length > 0) {
      const figures = caseFigures(version, label, rounds);
      cases[version] = figures;
      ctx.results.writeCase(version, {
        version,
        label,
        checks: tc.checks,
        cluster,
        kms: tc.kms.details,
        rounds,
        figures,
      });
      ctx.results.recordComparison(`case-${version}`, figures);
    }
    if (version === largeReadCase(s) && !ctx.signal.aborted) {
      large = await measureLarge(ctx, client, tc);
      ctx.results.recordComparison('large', large);
    }
    await client.call({ op: 'close' });
  }
  ctx.progress.end();
  const loadAtEnd = os.loadavg();
  const cores = os.cpus().length;
  ctx.results.writeJson('load-average.json', { loadAtStart, loadAtEnd, cores });
  const charted = Object.values(cases).filter((c): c is TdeCaseFigures => c !== undefined);
  if (charted.length > 0)
    await ctx.results.writeChart(
      'ozone-tde-files',
      'Small encrypted files/s by key provider',
      barChartSvg({
        title: 'Small encrypted files, files/s by key provider',
        categories: ['read (open + DECRYPT_EEK)', 'write (generateEncryptedKey)'],
        series: charted.map((c) => ({
          name: c.label,
          points: [c.readFilesPerSec, c.writeFilesPerSec].map((f) => ({
            value: f.median,
            min: f.min,
            max: f.max,
          })),
        })),
        yLabel: 'files/s',
      }),
    );
  const goals = tdeGoals(cases, large);
  const markdown = ozoneTdeReport(cases, large, goals, {
    quick: ctx.quick,
    settings: s,
    cluster,
    loadAtStart,
    loadAtEnd,
    cores,
  });
  const errors = charted.reduce((n, c) => n + c.errors, 0);
  if (errors > 0) {
    ctx.results.writeReport(markdown);
    throw new BenchmarkCheckError(
      `${errors} file open(s), read(s) or write(s) failed; see the report and case files`,
    );
  }
  return { markdown, summary: markdown };
}

export const ozoneTdeScenario: Scenario<OzoneTdeSettings> = {
  name: 'ozone-tde',
  title: "Encrypted buckets: fastpath-kms and Hadoop's KMS as an Ozone cluster's key provider",
  description:
    'An Ozone bucket encrypted with a KMS key, read and written by 16 clients (fastpath’s Ozone client, each with a ' +
    'KMS delegation token of its own): small files opened and read whole (each open one lookup and one DECRYPT_EEK ' +
    'at the KMS) and new ones written (each create one generateEncryptedKey by the OM). The key provider, one case ' +
    'each with a fresh ZooKeeper token store and cluster: fastpath-kms in its fixed and original token modes and ' +
    "Apache Hadoop's KMS. Per case: files/s, p50/p99 per open and per write, KMS process CPU per decrypt. Then the " +
    "encryption's own cost on large reads: encrypted ÷ plain MiB/s, fastpath's client and (with `--cluster real`) " +
    "Ozone's Java client, each against its own plain reads. The default run is the embedded mini cluster.",
  flags: OZONE_TDE_FLAGS,
  parseFlags: (args, { quick }) => parseOzoneTdeFlags(args, quick),
  async run(ctx) {
    return withKmsServerBundle(ctx, (bundle) => runOzoneTde(ctx, bundle));
  },
};
