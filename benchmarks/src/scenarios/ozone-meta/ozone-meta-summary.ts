// The ozone-meta scenario in the combined report of `benchmarks:all`: fastpath ÷ Ozone's Java
// client per operation (or, without Java, the figures per client), the goals, read back from
// comparison.json (`op-<op>` per operation, `verify`).
import { asRecord } from '../../all/json-fields.js';
import type { RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import { metaGoals, problemCount, type OpComparison, type VerifyTotals } from './meta-figures.js';
import { againstJavaTable, figuresTable } from './meta-report.js';
import { META_CLIENTS, META_OPS, type MetaClient } from './meta-workload.js';
import { estimateRunMs, type OzoneMetaSettings } from './ozone-meta-settings.js';

const HEADLINE_OP = 'create-empty';

export const ozoneMetaSummary: ScenarioSummary<OzoneMetaSettings> = {
  source: null,
  uses: (s) => (s.cluster === 'embedded' ? [] : ['java', 'ozone']),
  cases: (s) => s.ops.length * s.clients.length * s.rounds,
  estimateMs: (s) => estimateRunMs(s),
  read(folder) {
    const ops = META_OPS.flatMap((op) => {
      const entry = asRecord(folder.entries[`op-${op}`]);
      return entry && asRecord(entry['clients']) ? [entry as unknown as OpComparison] : [];
    });
    const verify = (asRecord(folder.entries['verify']) ?? {}) as Partial<Record<MetaClient, VerifyTotals>>;
    const java = ops.some((o) => o.clients.java !== undefined);
    const clients = META_CLIENTS.filter((c) => ops.some((o) => o.clients[c] !== undefined));
    const ratios: RatioFigure[] = ops.flatMap((o) =>
      (['fastpath-rpc', 'fastpath-grpc'] as const).map((c) => {
        const r = o.againstJava[c]?.opsPerSec;
        return {
          row: o.label,
          label: `fastpath ${c === 'fastpath-rpc' ? 'Hadoop RPC' : 'gRPC'} ÷ Java ops/s`,
          ours: r ? { value: r.ratio, min: r.min, max: r.max } : null,
          source: null,
        };
      }),
    );
    const headline = ops.find((o) => o.op === HEADLINE_OP)?.againstJava['fastpath-rpc']?.opsPerSec;
    const problems = problemCount(ops, verify);
    return {
      table: java ? againstJavaTable(ops) : figuresTable(ops, clients),
      ratios,
      headline: {
        row: 'create+commit, empty key',
        label: 'fastpath (Hadoop RPC) ÷ Java ops/s',
        ours: headline ? { value: headline.ratio, min: headline.min, max: headline.max } : null,
        source: null,
        better: 'higher',
      },
      goals: metaGoals(ops),
      notes: [
        "No source document: the goals are issue 31's (item 5), fastpath at least 1.5× Ozone's Java client's ops/s on every operation, with client CPU per op at most 0.7× Java's.",
        "Ozone's Java client runs with `--cluster real` or `real-ha` only; the default run (embedded mini cluster) measures fastpath's two OM transports alone.",
        ...(problems > 0
          ? [`${problems} failed operation(s) or listing problem(s): the figures do not stand.`]
          : []),
      ],
    };
  },
};
