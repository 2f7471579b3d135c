// The "security cost" table and charts of a real-cluster Ozone scenario run at several security
// levels, with the harness's table and bar chart: per operation, secure level and client, secure
// ÷ unsecured of the client's own throughput and CPU per operation, and the goal beside each
// fastpath row (its throughput ratio at least Java's, its CPU ratio at most Java's).
import type { FigureTable } from '../../all/scenario-summary.js';
import { barChartSvg, formatRatio, formatRatioWithRange, type RatioSummary } from '../../harness/index.js';
import { verdict } from '../ozone-write/ozone-write-report.js';
import { costGoalMet, type SecurityCostRow } from './security-cost.js';
import { SECURITY_LEVEL_LABEL } from './security-levels.js';

const ratioCell = (r: RatioSummary): string => formatRatioWithRange(r.ratio, r.min, r.max);

export interface SecurityCostLabels {
  /** The client whose ratios are the goal line (Ozone's Java client). */
  baseline: string;
  baselineLabel: string;
  clientLabel: (client: string) => string;
  /** What one operation is, for the captions: "op", "read". */
  unit: string;
}

export function securityCostTable(rows: readonly SecurityCostRow[], labels: SecurityCostLabels): FigureTable {
  return {
    caption: `Security cost: each client's secure ÷ unsecured figures, its own, per ${labels.unit} and level (ratio of the medians, min–max of the per-round ratios, rounds paired by number): ops/s (1× costs nothing, lower costs more) and client CPU per ${labels.unit} (higher costs more). Goal: fastpath's ops/s ratio ≥ ${labels.baselineLabel}'s, its CPU ratio ≤ ${labels.baselineLabel}'s`,
    columns: [
      { header: labels.unit === 'read' ? 'read path' : 'operation' },
      { header: 'security' },
      { header: 'client' },
      { header: 'ops/s secure ÷ none', align: 'right' },
      { header: `CPU/${labels.unit} secure ÷ none`, align: 'right' },
      { header: 'ops/s goal', align: 'right' },
      { header: 'CPU goal', align: 'right' },
    ],
    rows: rows.map((r) => {
      const met = costGoalMet(rows, r, labels.baseline);
      const isBaseline = r.client === labels.baseline;
      return [
        r.operation,
        SECURITY_LEVEL_LABEL[r.level],
        labels.clientLabel(r.client),
        ratioCell(r.throughput),
        ratioCell(r.cpuPerOp),
        isBaseline ? 'the line' : verdict(met.throughput),
        isBaseline ? 'the line' : verdict(met.cpuPerOp),
      ];
    }),
  };
}

/**
 * A bar chart of one of the two ratios: a group per operation and level, a bar per client (the
 * baseline's bar is the goal line of the others), a dashed line at 1× (security costs nothing).
 */
export function securityCostChartSvg(
  rows: readonly SecurityCostRow[],
  metric: 'throughput' | 'cpuPerOp',
  labels: SecurityCostLabels & { title: string; subtitle: string },
): string {
  const category = (r: SecurityCostRow): string => `${r.operation} · ${SECURITY_LEVEL_LABEL[r.level]}`;
  const categories = [...new Set(rows.map(category))];
  const clients = [...new Set(rows.map((r) => r.client))];
  return barChartSvg({
    title: labels.title,
    subtitle: labels.subtitle,
    categories,
    series: clients.map((client) => ({
      name: labels.clientLabel(client),
      points: categories.map((c) => {
        const r = rows.find((x) => x.client === client && category(x) === c);
        return r ? { value: r[metric].ratio, min: r[metric].min, max: r[metric].max } : null;
      }),
    })),
    yLabel:
      metric === 'throughput'
        ? 'ops/s, secure ÷ unsecured (higher is cheaper)'
        : `CPU per ${labels.unit}, secure ÷ unsecured (lower is cheaper)`,
    formatValue: formatRatio,
    referenceLine: { value: 1, label: 'no cost (1×)' },
  });
}

/** What {@link writeSecurityCostCharts} calls things in one scenario's charts. */
export interface SecurityCostChartNames {
  /** The scenario's name, the charts' file-name prefix (`ozone-meta`). */
  scenario: string;
  /** Who is measured, in the titles: "client", "reader". */
  who: string;
  /** The throughput, in the titles: "ops/s", "operations/s". */
  throughput: string;
  /** The CPU figure, in the titles: "CPU per op", "client CPU per read". */
  cpu: string;
}

/** Writes the two security-cost charts (throughput and CPU ratios) of a run through `results`. */
export async function writeSecurityCostCharts(
  results: { writeChart(name: string, title: string, svg: string): Promise<unknown> },
  rows: readonly SecurityCostRow[],
  rounds: number,
  labels: SecurityCostLabels,
  names: SecurityCostChartNames,
): Promise<void> {
  const subtitle = `each client's secure ÷ unsecured, ${rounds} round(s), medians with min-max; Java's bar is the goal line`;
  for (const [metric, suffix, figure] of [
    ['throughput', 'ops', names.throughput],
    ['cpuPerOp', 'cpu', names.cpu],
  ] as const) {
    await results.writeChart(
      `${names.scenario}-security-cost-${suffix}`,
      `security cost, ${figure}: each ${names.who}'s secure ÷ unsecured`,
      securityCostChartSvg(rows, metric, {
        ...labels,
        title: `What security costs each ${names.who}: ${figure}, secure ÷ unsecured`,
        subtitle,
      }),
    );
  }
}
