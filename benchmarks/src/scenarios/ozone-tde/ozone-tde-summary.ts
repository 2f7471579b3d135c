// The ozone-tde scenario in the combined report of `benchmarks:all`: the key providers' table,
// fastpath-kms ÷ Hadoop's KMS files/s as headline, the encryption-cost table and the goals,
// read back from comparison.json (`case-<version>` per key provider, `large`).
import { asRecord } from '../../all/json-fields.js';
import type { RatioFigure, ScenarioSummary, UsedTool } from '../../all/scenario-summary.js';
import { KMS_VERSIONS } from '../kms-http/kms-versions.js';
import {
  estimateRunMs,
  TDE_KMS_VERSIONS,
  type OzoneTdeSettings,
  type TdeKmsVersion,
} from './ozone-tde-settings.js';
import { againstHadoop, tdeGoals, type LargeFigures, type TdeCaseFigures } from './tde-figures.js';
import { providersTable } from './tde-report.js';

export const ozoneTdeSummary: ScenarioSummary<OzoneTdeSettings> = {
  source: null,
  uses: (s) => {
    const tools = new Set<UsedTool>(['zookeeper']);
    if (s.kms.includes('hadoop')) for (const t of ['java', 'hadoop'] as const) tools.add(t);
    if (s.cluster === 'real') for (const t of ['java', 'ozone'] as const) tools.add(t);
    return [...tools];
  },
  cases: (s) => s.kms.length * s.rounds,
  estimateMs: (s) => estimateRunMs(s),
  read(folder) {
    const cases: Partial<Record<TdeKmsVersion, TdeCaseFigures>> = {};
    for (const v of TDE_KMS_VERSIONS) {
      const entry = asRecord(folder.entries[`case-${v}`]);
      if (entry && asRecord(entry['readFilesPerSec'])) cases[v] = entry as unknown as TdeCaseFigures;
    }
    const largeEntry = asRecord(folder.entries['large']);
    const large =
      largeEntry && asRecord(largeEntry['fastpath']) ? (largeEntry as unknown as LargeFigures) : null;
    const ratios: RatioFigure[] = (['fixed', 'original'] as const).map((v) => ({
      row: KMS_VERSIONS[v].label,
      label: `${v} ÷ Hadoop's KMS read files/s`,
      ours: againstHadoop(cases, v),
      source: null,
    }));
    const errors = Object.values(cases).reduce((n, c) => n + (c?.errors ?? 0), 0);
    if (large)
      for (const [client, f] of [
        ['fastpath', large.fastpath],
        ["Ozone's Java client", large.java],
      ] as const)
        ratios.push({
          row: `large reads, ${client}`,
          label: 'encrypted ÷ plain MiB/s',
          ours: f ? { value: f.ratio.ratio, min: f.ratio.min, max: f.ratio.max } : null,
          source: null,
        });
    return {
      table: providersTable(cases),
      ratios,
      headline: {
        row: KMS_VERSIONS.fixed.label,
        label: "fastpath-kms (fixed) ÷ Hadoop's KMS files/s",
        ours: againstHadoop(cases, 'fixed'),
        source: null,
        better: 'higher',
      },
      goals: tdeGoals(cases, large),
      notes: [
        "No source document: the goals are issue 34's, fastpath-kms at least 2× Hadoop's KMS files/s in this workload, and encryption costing fastpath's client no more than Ozone's Java client (each against its own plain reads).",
        "Ozone's Java client reads with `--cluster real` only; the default run (embedded mini cluster) measures fastpath's client alone.",
        ...(errors > 0
          ? [`${errors} file open(s), read(s) or write(s) failed: the figures do not stand.`]
          : []),
      ],
    };
  },
};
