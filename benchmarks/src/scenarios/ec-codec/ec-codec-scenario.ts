import { loadavg } from 'node:os';
import {
  prepareHadoop,
  runHadoopErasureCoder,
  type HadoopErasureCoderRequest,
} from '@fastpath/hadoop-fixture';
import { BenchmarkProcessError, barChartSvg, summarize, type Scenario } from '../../harness/index.js';
import { ecCodecChart, ecCodecMarkdown, type EcCodecRow } from './ec-codec-report.js';
import {
  EC_CODEC_FLAGS,
  opErasures,
  parseEcCodecFlags,
  schemaCounts,
  type EcCodecSettings,
  type EcCoder,
} from './ec-codec-settings.js';
import { prepareIsalNative } from './isal-native-runner.js';
import { measureRound, prepareFastpathCase } from './measure-fastpath-coder.js';
import { createRawErasureEncoder } from '@fastpath/ozone-fs-client';

/** Wall time of one case and coder: a warm-up round and the measured ones. */
export function ecCaseMs(s: EcCodecSettings): number {
  return (s.rounds + 1) * s.roundMs;
}

/**
 * The codec benchmark of erasure-coded keys: MiB/s to encode a stripe and to rebuild one or two
 * lost data cells, for rs-3-2 and rs-6-3 with 1 MiB cells, by fastpath's TypeScript kernel and its
 * ISA-L addon, beside hadoop-common's Java coder (`RSRawEncoder`/`RSRawDecoder` in a JVM with both
 * JIT tiers) and ISA-L called from C the way Hadoop's native coder calls it.
 */
export const ecCodecScenario: Scenario<EcCodecSettings> = {
  name: 'ec-codec',
  title: 'Erasure-coding codec: fastpath against Hadoop’s Java coder and ISA-L',
  description:
    'MiB/s of stripe data encoded, and decoded with one and two lost data cells, for rs-3-2 and rs-6-3 with ' +
    '1 MiB cells, on one thread: fastpath’s TypeScript kernel and its optional ISA-L addon, hadoop-common’s ' +
    'Java RSRawEncoder/RSRawDecoder, and ISA-L from C (Hadoop’s native coder needs a libhadoop that Maven ' +
    'does not ship). Same stripes, same decode rules; no I/O, no checksums.',
  flags: EC_CODEC_FLAGS,
  parseFlags: (args, { quick }) => parseEcCodecFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'ec-codec', quick: ctx.quick, settings: s });
    const cases = s.schemas.flatMap((schema) =>
      s.ops.map((op) => ({
        schema,
        op,
        c: { ...schemaCounts(schema), cellBytes: s.cellBytes, erasures: opErasures(op) },
      })),
    );
    ctx.progress.begin('ec-codec', cases.length * s.coders.length * ecCaseMs(s));
    const notes: string[] = [];
    const samples = new Map<string, Partial<Record<EcCoder, number[] | { missing: string }>>>(
      cases.map((k) => [`${k.schema}/${k.op}`, {}]),
    );
    const put = (key: string, coder: EcCoder, v: number[] | { missing: string }): void => {
      samples.get(key)![coder] = v;
    };
    const loadBefore = loadavg()[0]!;

    // fastpath's kernels, in this process; their rounds alternate so drift hits both alike.
    const isalAddon = createRawErasureEncoder({ codec: 'rs', data: 1, parity: 1 }).engine === 'isa-l';
    for (const k of cases) {
      const key = `${k.schema}/${k.op}`;
      const engines = (['typescript', 'isa-l-addon'] as const).filter((c) => s.coders.includes(c));
      const steps = new Map<EcCoder, () => void>();
      for (const coder of engines) {
        if (coder === 'isa-l-addon' && !isalAddon) {
          put(key, coder, { missing: 'addon not built: no libisal-dev' });
          continue;
        }
        const prepared = prepareFastpathCase(k.c, coder === 'typescript' ? 'typescript' : 'isa-l');
        steps.set(coder, () => prepared.step());
      }
      const rounds = new Map<EcCoder, number[]>([...steps.keys()].map((c) => [c, []]));
      for (let r = -1; r < s.rounds; r++) {
        for (const [coder, step] of steps) {
          if (ctx.signal.aborted) throw new Error('interrupted');
          ctx.progress.setDetail(`${key} · ${coder} · ${r < 0 ? 'warm-up' : `round ${r + 1}/${s.rounds}`}`);
          const mib = measureRound(step, k.c, s.roundMs);
          if (r >= 0) rounds.get(coder)!.push(mib);
          ctx.progress.advance(s.roundMs);
          // Let the progress line and Ctrl-C through between rounds.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      for (const [coder, values] of rounds) put(key, coder, values);
    }

    if (s.coders.includes('hadoop-java')) {
      ctx.progress.setDetail('Hadoop Java coder');
      const hadoop = await prepareHadoop({ onProgress: (line) => ctx.log(line) });
      const requests: HadoopErasureCoderRequest[] = cases.map((k) => ({
        op: 'bench',
        codec: 'rs',
        data: k.c.data,
        parity: k.c.parity,
        cellBytes: k.c.cellBytes,
        erasures: k.c.erasures,
        rounds: s.rounds,
        roundMs: s.roundMs,
      }));
      const answers = await runHadoopErasureCoder(hadoop, requests, {
        heapMb: 1024,
        timeoutMs: 120_000 + cases.length * ecCaseMs(s) * 2,
      });
      answers.forEach((a, i) => {
        const key = `${cases[i]!.schema}/${cases[i]!.op}`;
        if (!a.ok || a.mibPerSecond === undefined) {
          throw new BenchmarkProcessError(
            `Hadoop's coder failed on ${key}: ${a.ok ? 'no figures' : `${a.exception}: ${a.message ?? ''}`}`,
          );
        }
        put(key, 'hadoop-java', [...a.mibPerSecond]);
        ctx.progress.advance(ecCaseMs(s));
      });
      notes.push(
        `Hadoop ${hadoop.hadoopVersion}: hadoop-common's Java RSRawEncoder/RSRawDecoder on heap arrays, one JVM, both JIT tiers, one unmeasured round first. Its native coder cannot load from Maven's jars (no libhadoop with ISA-L), so ISA-L is measured from C instead.`,
      );
    }

    if (s.coders.includes('isa-l-native')) {
      const native = await prepareIsalNative(ctx.sourcePath('scenarios/ec-codec/isal-native-bench.c'));
      for (const k of cases) {
        const key = `${k.schema}/${k.op}`;
        ctx.progress.setDetail(`${key} · ISA-L from C`);
        put(
          key,
          'isa-l-native',
          native.available ? await native.run(k.c, s.rounds, s.roundMs) : { missing: native.reason },
        );
        ctx.progress.advance(ecCaseMs(s));
      }
      if (native.available) native.close();
      notes.push(
        'ISA-L from C: Debian’s libisal 2.30 with the calls of Hadoop’s native coder (gf_gen_cauchy1_matrix, gf_invert_matrix, ec_init_tables, ec_encode_data); the rebuilt cell is checked.',
      );
    }
    ctx.progress.end();

    const loadAfter = loadavg()[0]!;
    notes.push(
      `Load average (1 min) ${loadBefore.toFixed(2)} at the start and ${loadAfter.toFixed(2)} at the end: on a shared machine these figures are under load, not results.`,
      'MiB/s counts the stripe’s data (d cells) per stripe coded, for decodes too, so encode and decode rows compare per byte of key data. The columns run one after another (fastpath in-process with its kernels’ rounds alternating, then one JVM, then the C program).',
    );
    const rows: EcCodecRow[] = cases.map((k) => {
      const key = `${k.schema}/${k.op}`;
      const entry = samples.get(key)!;
      const coders: EcCodecRow['coders'] = {};
      for (const coder of s.coders) {
        const v = entry[coder];
        if (v === undefined) continue;
        if (Array.isArray(v)) {
          const sum = summarize(v);
          coders[coder] = { value: sum.median, min: sum.min, max: sum.max };
        } else {
          coders[coder] = v;
        }
      }
      ctx.results.writeCase(key.replace('/', '-'), { schema: k.schema, op: k.op, case: k.c, samples: entry });
      ctx.results.recordComparison(key, { schema: k.schema, op: k.op, coders, loadBefore, loadAfter });
      return { schema: k.schema, op: k.op, coders };
    });
    await ctx.results.writeChart(
      'mib-per-second',
      'Erasure coding MiB/s',
      barChartSvg(ecCodecChart(rows, s.coders)),
    );
    return {
      markdown: ecCodecMarkdown(rows, s.coders, notes),
      summary: ecCodecMarkdown(rows, s.coders, []),
    };
  },
};
