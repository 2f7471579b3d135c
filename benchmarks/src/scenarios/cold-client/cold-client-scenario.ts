import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import {
  BenchmarkCheckError,
  parseScenarioFlags,
  BenchmarkProcessError,
  barChartSvg,
  shellQuote,
  summarize,
  type Scenario,
  type ScenarioContext,
  type ScenarioReport,
  type Summary,
} from '../../harness/index.js';
import type { ProbeInput, ProbeTimes } from './cold-client-probe.js';
import type { Breakdown, BreakdownInput } from './cold-start-breakdown.js';
import { BASELINE_VARIANT, COLD_CLIENT_VARIANTS, type ColdClientVariant } from './cold-client-variants.js';
import { buildProbeBundles, chooseProbeBuildDir, type ProbeBundles } from './probe-bundles.js';
import { runProbeProcess } from './probe-process.js';
import { javaAnchorMarkdown, runJavaAnchor } from './java-anchor.js';
import { breakdownMarkdown, coldClientMarkdown, type VariantResult } from './cold-client-report.js';

const ROUNDS = 10;
const QUICK_ROUNDS = 3;
const BREAKDOWN_ROUNDS = 5;
const QUICK_BREAKDOWN_ROUNDS = 2;
const READ_BYTES = 64 * 1024;
const KEY = { volume: 'coldvol', bucket: 'coldbucket', key: 'key-64k' };

interface MiniCluster {
  omAddress: string;
  caFile: string;
  datanodes: string[];
  stop(): Promise<void>;
}

/** fastpath-ozone-mini start --tls in its own process; resolves once it printed its address. */
async function startCluster(ctx: ScenarioContext): Promise<MiniCluster> {
  const bin = join(
    dirname(createRequire(ctx.sourcePath('index.ts')).resolve('@fastpath/ozone-fs-client/package.json')),
    'bin/fastpath-ozone-mini.js',
  );
  const args = [bin, 'start', '--tls', '--datanodes', '3'];
  ctx.results.recordCommand([process.execPath, ...args].map(shellQuote).join(' '), 'the TLS mini cluster');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) =>
      reject(
        new BenchmarkProcessError(`fastpath-ozone-mini exited (${code}) before it was ready: ${stderr}`),
      ),
    );
  });
  const ready = JSON.parse(line) as { omAddress: string; caFile: string; datanodes: { address: string }[] };
  return {
    omAddress: ready.omAddress,
    caFile: ready.caFile,
    datanodes: ready.datanodes.map((d) => d.address),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function probeArgs(variant: ColdClientVariant, bundles: ProbeBundles, cacheFile: string): string[] {
  if (variant.load === 'single') return [bundles.single];
  if (variant.load === 'code-cache') return [bundles.codeCacheRunner, bundles.single, cacheFile];
  return [bundles.modules];
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length ? by % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

const COLD_CLIENT_FLAGS = {
  'java-anchor': {
    type: 'boolean',
    description:
      "also run the cold read with Ozone's own Java client (fresh JVM) beside fastpath's against a real MiniOzoneCluster (resolves Ozone's jars with Maven on first use; default: on in `all` without --quick, else off)",
  },
} as const;

export interface ColdClientFlags {
  javaAnchor: boolean;
}

/** The variants run beside Java: the client as today, and the fastest way to load it. */
const ANCHOR_VARIANTS = ['as-today', 'code-cache'] as const;

export const coldClientScenario: Scenario<ColdClientFlags> = {
  name: 'cold-client',
  title: 'Cold Ozone client: the datanode set-up moved into the OM wait (HDDS-17357)',
  description:
    "Each round starts a fresh Node process per variant that creates the ofs:// file system against a TLS mini cluster running in its own process, calls getFileStatus, reads 64 KiB and closes. Variants: as today (warm-up off), the warm-up of the datanode protocol and checksums, plus the TLS credentials, and the full warm-up loaded from one bundled file and through a V8 code cache. Rounds are interleaved; medians and min-max ranges. With --java-anchor, the same cold read by Ozone's own Java client in a fresh JVM beside fastpath's, on a real MiniOzoneCluster.",
  flags: COLD_CLIENT_FLAGS,
  parseFlags: (args, { quick, all }) => {
    const flags = parseScenarioFlags('cold-client', args, COLD_CLIENT_FLAGS);
    return { javaAnchor: flags['java-anchor'] ?? (all && !quick) };
  },
  async run(ctx) {
    const probeDir = chooseProbeBuildDir(ctx.results.path('probes'), dirname(ctx.sourcePath('.')));
    if (probeDir.scratch)
      ctx.log(
        `probe bundles in ${probeDir.dir} (npm packages do not resolve from the results folder; removed at the end)`,
      );
    try {
      return await runColdClient(ctx, probeDir.dir);
    } finally {
      probeDir.remove();
    }
  },
};

async function runColdClient(ctx: ScenarioContext<ColdClientFlags>, outDir: string): Promise<ScenarioReport> {
  const rounds = ctx.quick ? QUICK_ROUNDS : ROUNDS;
  const breakdownRounds = ctx.quick ? QUICK_BREAKDOWN_ROUNDS : BREAKDOWN_ROUNDS;
  const bundles = await buildProbeBundles(
    dirname(ctx.sourcePath('scenarios/cold-client/cold-client-probe.ts')),
    outDir,
  );
  const cacheFile = join(outDir, 'probe-single.cjs.v8cache');
  const anchorProcesses = ctx.flags.javaAnchor ? rounds * (ANCHOR_VARIANTS.length + 1) : 0;
  ctx.progress.begin(
    'cold-client processes',
    rounds * COLD_CLIENT_VARIANTS.length + 2 * breakdownRounds + anchorProcesses,
  );
  let mainTable = '';
  let breakdownTable = '';
  const cluster = await startCluster(ctx);
  try {
    const setup = createOzoneClient({ omAddress: cluster.omAddress, tls: { caFile: cluster.caFile } });
    try {
      await setup.createVolume(KEY.volume);
      await setup.createBucket(KEY.volume, KEY.bucket);
      await setup.writeKey(KEY.volume, KEY.bucket, KEY.key, Buffer.alloc(READ_BYTES, 0x5a));
    } finally {
      setup.close();
    }
    const input = (properties: Record<string, string>): ProbeInput => ({
      omAddress: cluster.omAddress,
      caFile: cluster.caFile,
      ...KEY,
      readBytes: READ_BYTES,
      properties,
    });
    // One unmeasured run fills the code cache and the OS file cache for every file.
    for (const v of COLD_CLIENT_VARIANTS)
      await runProbeProcess(ctx, process.execPath, probeArgs(v, bundles, cacheFile), input(v.properties));
    for (const v of COLD_CLIENT_VARIANTS)
      ctx.results.recordCommand(
        `COLD_CLIENT_PROBE_INPUT='<json>' ${[process.execPath, ...probeArgs(v, bundles, cacheFile)].map(shellQuote).join(' ')}`,
        v.label,
      );

    const samples = new Map<string, { times: ProbeTimes[]; wallMs: number[] }>(
      COLD_CLIENT_VARIANTS.map((v) => [v.id, { times: [], wallMs: [] }]),
    );
    for (let r = 0; r < rounds; r++) {
      for (const v of rotate(COLD_CLIENT_VARIANTS, r)) {
        if (ctx.signal.aborted) throw new Error('interrupted');
        const run = await runProbeProcess(
          ctx,
          process.execPath,
          probeArgs(v, bundles, cacheFile),
          input(v.properties),
        );
        const times = JSON.parse(run.stdout) as ProbeTimes;
        if (times.bytesRead !== READ_BYTES)
          throw new BenchmarkCheckError(`${v.id} read ${times.bytesRead} bytes, not ${READ_BYTES}`);
        const s = samples.get(v.id)!;
        s.times.push(times);
        s.wallMs.push(run.wallMs);
        ctx.progress.advance(1, `round ${r + 1}/${rounds}`);
      }
    }

    const breakdowns: { mode: string; rounds: Breakdown[] }[] = [
      { mode: 'warm-up off', rounds: [] },
      { mode: 'warm-up on', rounds: [] },
    ];
    const bInput = (properties: Record<string, string>): BreakdownInput => ({
      ...input(properties),
      caFile: cluster.caFile,
      datanodes: cluster.datanodes,
    });
    for (let r = 0; r < breakdownRounds; r++) {
      for (const b of rotate(breakdowns, r)) {
        const props =
          b.mode === 'warm-up off'
            ? COLD_CLIENT_VARIANTS[0]!.properties
            : COLD_CLIENT_VARIANTS.find((v) => v.id === 'transport-tls')!.properties;
        const run = await runProbeProcess(ctx, process.execPath, [bundles.breakdown], bInput(props));
        b.rounds.push(JSON.parse(run.stdout) as Breakdown);
        ctx.progress.advance(1, `breakdown ${r + 1}/${breakdownRounds}`);
      }
    }

    const results: VariantResult[] = COLD_CLIENT_VARIANTS.map((v) => {
      const s = samples.get(v.id)!;
      const pick = (f: (t: ProbeTimes) => number): Summary => summarize(s.times.map(f));
      return {
        variant: v,
        createMs: pick((t) => t.createMs),
        metadataMs: pick((t) => t.metadataMs),
        readMs: pick((t) => t.readMs),
        lookupAndReadMs: pick((t) => t.metadataMs + t.readMs),
        totalMs: pick((t) => t.totalMs),
        wallMs: summarize(s.wallMs),
        rounds: s.times,
      };
    });
    for (const r of results) {
      ctx.results.writeCase(r.variant.id, r);
      ctx.results.recordComparison(r.variant.id, {
        label: r.variant.label,
        medianCreateMs: r.createMs.median,
        medianReadMs: r.lookupAndReadMs.median,
        medianTotalMs: r.totalMs.median,
        totalRangeMs: [r.totalMs.min, r.totalMs.max],
        medianWallMs: r.wallMs.median,
      });
    }
    ctx.results.writeJson('breakdown.json', breakdowns);
    const categories = ['create the client', 'lookup + read 64 KiB', 'total (process start to close)'];
    await ctx.results.writeChart(
      'cold-client',
      'Cold Ozone client over TLS: medians, min-max whiskers',
      barChartSvg({
        title: 'Cold Ozone client over TLS (fresh Node process per round)',
        subtitle: `${rounds} interleaved rounds, medians with min-max`,
        categories,
        series: results.map((r) => ({
          name: r.variant.label,
          points: [r.createMs, r.lookupAndReadMs, r.totalMs].map((s) => ({
            value: s.median,
            min: s.min,
            max: s.max,
          })),
        })),
        yLabel: 'ms',
        formatValue: (v) => `${Math.round(v)}`,
      }),
    );
    const baseline = results.find((r) => r.variant.id === BASELINE_VARIANT)!;
    mainTable = coldClientMarkdown(results, baseline, rounds);
    breakdownTable = breakdownMarkdown(breakdowns);
  } finally {
    await cluster.stop();
  }

  // After the TLS cluster is gone, so the two clusters never share the machine.
  let anchorTable = '';
  if (ctx.flags.javaAnchor) {
    const anchor = await runJavaAnchor(ctx, {
      rounds,
      readBytes: READ_BYTES,
      key: KEY,
      variants: ANCHOR_VARIANTS.map((id) => {
        const variant = COLD_CLIENT_VARIANTS.find((v) => v.id === id)!;
        return { variant, args: probeArgs(variant, bundles, cacheFile) };
      }),
    });
    ctx.results.writeCase('java-anchor', anchor);
    ctx.results.recordComparison('java-anchor', {
      label: 'fastpath cold client total / Java cold client total (real MiniOzoneCluster, no TLS)',
      ratioToJava: anchor.ratioToJava,
      medianWallMs: Object.fromEntries(anchor.rows.map((r) => [r.id, r.wallMs.median])),
    });
    anchorTable = javaAnchorMarkdown(anchor);
  } else {
    anchorTable =
      "The Java anchor (Ozone's own Java client, fresh JVM, on a real MiniOzoneCluster) was not run: add `--java-anchor` (on by default in `all` without `--quick`).";
  }
  ctx.progress.end();
  return {
    markdown: `${mainTable}\n\n${anchorTable}\n\n${breakdownTable}`,
    summary: `${mainTable}\n\n${anchorTable}`,
  };
}
