// ozone-read's cases as the security cost takes them: a "client" is a reader with its variant
// (fastpath on a transport, with read worker threads; Ozone's Java client), an "operation" is a
// read path with its verify column, the same for both readers so that fastpath's row meets the
// Java row it is held against. The S3 gateway's row runs unsecured only and has no cost.
import { READ_COLUMNS, READ_ROWS, TRANSPORT_MARKS } from './ozone-read-cases.js';
import type { CaseResult } from './ozone-read-scenario.js';
import type { LevelRounds } from './security-cost.js';
import type { SecurityCostLabels } from './security-cost-report.js';

/** How the security cost names ozone-read's readers; the Java client's ratios are the goal line. */
export const READ_SECURITY_COST_LABELS: SecurityCostLabels = {
  baseline: 'java',
  baselineLabel: "Ozone's Java client",
  clientLabel: (client) => (client === 'java' ? "Ozone's Java client" : client),
  unit: 'read',
};

/** The reader and its variant: `java`, or `fastpath` with its transport and read worker threads. */
export function readerVariant(c: Pick<CaseResult, 'reader' | 'transport' | 'readWorkers'>): string {
  if (c.reader !== 'fastpath') return c.reader;
  const workers = c.readWorkers ?? 0;
  return `fastpath${TRANSPORT_MARKS[c.transport].label}${workers > 0 ? `, ${workers} read worker thread${workers === 1 ? '' : 's'}` : ''}`;
}

/** Every case's rounds (operations/s, client CPU µs per read) at its level, fastpath's and Java's. */
export function readLevelRounds(results: readonly CaseResult[]): LevelRounds[] {
  return results
    .filter((c) => c.reader !== 's3' && c.rounds.length > 0)
    .map((c) => ({
      client: readerVariant(c),
      operation:
        `${READ_ROWS[c.row].label}${c.aligned ? ', 64 KiB-aligned' : ''}` +
        `${c.readBlock === true ? ', streaming ReadBlock' : ''}, ${READ_COLUMNS[c.column].label}`,
      level: c.security ?? 'none',
      throughput: [...c.rounds].sort((a, b) => a.round - b.round).map((r) => r.figures.opsPerSec),
      cpuPerOp: [...c.rounds].sort((a, b) => a.round - b.round).map((r) => r.figures.cpuMicrosPerOp),
    }));
}
