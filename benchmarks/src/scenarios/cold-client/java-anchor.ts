// The Java anchor of the cold-client probe: the same cold read — a fresh process that creates a
// client, looks the file up, reads 64 KiB and exits — by fastpath's client and by Ozone's own Java
// client, against one real MiniOzoneCluster. The TLS mini cluster of the main table is fastpath's
// own, which a Java client cannot use, so this part runs without TLS on Apache Ozone's cluster.
import {
  javaColdReadCommand,
  prepareOzoneJars,
  startRealOzoneCluster,
  type JavaColdReadTimes,
} from '@fastpath/ozone-fixture';
import {
  BenchmarkCheckError,
  markdownTable,
  summarize,
  type ScenarioContext,
  type Summary,
} from '../../harness/index.js';
import type { ProbeInput, ProbeTimes } from './cold-client-probe.js';
import type { ColdClientVariant } from './cold-client-variants.js';
import { runProbeProcess } from './probe-process.js';

/** The source's goal: a fastpath cold client takes at most this fraction of Java's total. */
export const JAVA_ANCHOR_GOAL_RATIO = 0.25;

export interface AnchorRow {
  id: string;
  label: string;
  /** Spawn to exit, measured by this process the same way for every row. */
  wallMs: Summary;
  /** Inside the process: creating the client (module or class loading included). */
  createMs: Summary;
  /** Inside the process: the lookup and the 64 KiB read. */
  lookupAndReadMs: Summary;
}

export interface JavaAnchorResult {
  ozoneVersion: string;
  rounds: number;
  rows: AnchorRow[];
  /** Each fastpath row's median wall time over Java's. */
  ratioToJava: Record<string, number>;
}

export interface JavaAnchorPlan {
  rounds: number;
  readBytes: number;
  key: { volume: string; bucket: string; key: string };
  /** The fastpath variants to run beside Java, with the argv of their probe. */
  variants: ReadonlyArray<{ variant: ColdClientVariant; args: string[] }>;
}

/** `2.2.0` of Ozone's `2.2.0, r<revision>` version string. */
function ozoneRelease(version: string): string {
  return version.split(',')[0]!.trim();
}

export async function runJavaAnchor(
  ctx: ScenarioContext<unknown>,
  plan: JavaAnchorPlan,
): Promise<JavaAnchorResult> {
  const jars = await prepareOzoneJars({ onProgress: (line) => ctx.note(`ozone jars: ${line}`) });
  ctx.note('java anchor: starting a real MiniOzoneCluster (one datanode, no TLS)');
  // One datanode and RATIS/ONE: a cold read contacts one datanode either way, and the smaller
  // cluster leaves more of the machine to the probes.
  const cluster = await startRealOzoneCluster({ datanodes: 1 });
  try {
    const [written] = await cluster.writeKeys([
      { ...plan.key, size: plan.readBytes, seed: 17, replication: 'RATIS/ONE' },
    ]);
    if (!written) throw new BenchmarkCheckError('the Java client wrote no key for the anchor');
    const javaCommand = javaColdReadCommand(jars, {
      omRpcAddress: cluster.omRpcAddress,
      ...plan.key,
      readBytes: plan.readBytes,
    });
    ctx.results.recordCommand(
      [javaCommand.file, ...javaCommand.args].join(' '),
      'the Java anchor: one cold Ozone Java client',
    );
    const input = (v: ColdClientVariant): ProbeInput => ({
      omAddress: cluster.omGrpcAddress,
      ...plan.key,
      readBytes: plan.readBytes,
      properties: v.properties,
    });

    type Sample = { wallMs: number; createMs: number; lookupAndReadMs: number };
    const runs: Array<{ id: string; label: string; once: () => Promise<Sample> }> = [
      ...plan.variants.map(({ variant, args }) => ({
        id: `fastpath-${variant.id}`,
        label: `fastpath, ${variant.label}`,
        once: async (): Promise<Sample> => {
          const run = await runProbeProcess(ctx, process.execPath, args, input(variant));
          const t = JSON.parse(run.stdout) as ProbeTimes;
          if (t.bytesRead !== plan.readBytes)
            throw new BenchmarkCheckError(`${variant.id} read ${t.bytesRead} bytes, not ${plan.readBytes}`);
          return { wallMs: run.wallMs, createMs: t.createMs, lookupAndReadMs: t.metadataMs + t.readMs };
        },
      })),
      {
        id: 'java',
        label: `Ozone's Java client ${ozoneRelease(cluster.ozoneVersion)} (fresh JVM)`,
        once: async (): Promise<Sample> => {
          const run = await runProbeProcess(ctx, javaCommand.file, javaCommand.args);
          const t = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as JavaColdReadTimes;
          if (t.bytesRead !== plan.readBytes || t.sha256 !== written.sha256)
            throw new BenchmarkCheckError(
              `the Java client read ${t.bytesRead} bytes (sha256 ${t.sha256}), not the ${plan.readBytes} written`,
            );
          return { wallMs: run.wallMs, createMs: t.createMs, lookupAndReadMs: t.metadataMs + t.readMs };
        },
      },
    ];

    // One unmeasured run each: class data and file caches warm, the code cache written.
    for (const r of runs) await r.once();
    const samples = new Map<string, Sample[]>(runs.map((r) => [r.id, []]));
    for (let round = 0; round < plan.rounds; round++) {
      // Interleaved, the order rotated each round, so a slow moment of the machine hits every row.
      for (let i = 0; i < runs.length; i++) {
        if (ctx.signal.aborted) throw new Error('interrupted');
        const r = runs[(i + round) % runs.length]!;
        samples.get(r.id)!.push(await r.once());
        ctx.progress.advance(1, `java anchor round ${round + 1}/${plan.rounds}`);
      }
    }
    const rows: AnchorRow[] = runs.map((r) => {
      const s = samples.get(r.id)!;
      return {
        id: r.id,
        label: r.label,
        wallMs: summarize(s.map((x) => x.wallMs)),
        createMs: summarize(s.map((x) => x.createMs)),
        lookupAndReadMs: summarize(s.map((x) => x.lookupAndReadMs)),
      };
    });
    const java = rows.find((r) => r.id === 'java')!;
    const ratioToJava = Object.fromEntries(
      rows.filter((r) => r.id !== 'java').map((r) => [r.id, r.wallMs.median / java.wallMs.median]),
    );
    return { ozoneVersion: ozoneRelease(cluster.ozoneVersion), rounds: plan.rounds, rows, ratioToJava };
  } finally {
    await cluster.stop();
  }
}

const ms = (s: Summary): string => `${Math.round(s.median)} ms (${Math.round(s.min)}–${Math.round(s.max)})`;

/** The anchor's table and the goal line. */
export function javaAnchorMarkdown(result: JavaAnchorResult): string {
  const table = markdownTable(
    [
      { header: 'cold client (fresh process, real MiniOzoneCluster, no TLS)' },
      { header: 'create the client', align: 'right' },
      { header: 'lookup + read 64 KiB', align: 'right' },
      { header: 'total, spawn to exit', align: 'right' },
      { header: 'total / Java', align: 'right' },
    ],
    result.rows.map((r) => [
      r.label,
      ms(r.createMs),
      ms(r.lookupAndReadMs),
      ms(r.wallMs),
      r.id === 'java' ? '1.00×' : `${(result.ratioToJava[r.id] ?? NaN).toFixed(2)}×`,
    ]),
  );
  const best = Math.min(...Object.values(result.ratioToJava));
  const verdict = best <= JAVA_ANCHOR_GOAL_RATIO ? 'met' : 'missed';
  return [
    `### Against Ozone's own Java client (Apache Ozone ${result.ozoneVersion})`,
    '',
    `${result.rounds} interleaved rounds, medians with min–max. Both clients read the same 64 KiB key from one real MiniOzoneCluster (one datanode, RATIS/ONE, no TLS); the fastpath probe goes through the \`ofs://\` file system over gRPC, the Java probe through \`OzoneClient\` (Hadoop RPC to the OM, gRPC to the datanode). Totals are timed by the benchmark from spawn to exit for every row, so JVM and Node start-up are both in them.`,
    '',
    table,
    '',
    `Goal: a fastpath cold client's total ≤ ${JAVA_ANCHOR_GOAL_RATIO}× the Java client's — **${verdict}** (best fastpath row ${best.toFixed(2)}×).`,
  ].join('\n');
}
