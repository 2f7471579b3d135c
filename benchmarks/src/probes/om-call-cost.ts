// The om-call-cost probe: what one OM call costs fastpath's client process, per operation and OM
// transport, against the embedded mini cluster (in a process of its own). Each (transport,
// operation) runs in a client process of its own, the transports taking turns round by round;
// per cell the median and min–max of the rounds: ops/s, CPU µs per operation and bytes allocated
// per operation. The bytes are counted by V8's sampling heap profiler in a window of their own (the
// profiler costs CPU), collected objects included: unlike the CPU figures, they hardly move with
// the machine's load, so a change that makes fewer objects shows as such even on a noisy machine.
// It is not a scenario and sets no goal: ozone-meta measures the operations beside Ozone's Java
// client on a real cluster; this says where a call's CPU goes between two builds of the client.
import { formatSiWithRange, markdownTable, startChild, summarize } from '../harness/index.js';
import type { ClusterCall, ClusterInfo } from '../scenarios/ozone-read/embedded-cluster-main.js';
import type { OmCallClientCall } from './om-call-cost-client.js';

/** `create`: an empty key's create and commit (two calls); the others one call each, but for a listing's pages. */
export const OM_CALL_OPS = ['create', 'lookup', 'file-status', 'list', 'rename'] as const;
export type OmCallOp = (typeof OM_CALL_OPS)[number];
export const OM_CALL_TRANSPORTS = ['hadoop-rpc', 'grpc'] as const;
export type OmCallTransport = (typeof OM_CALL_TRANSPORTS)[number];

/** What one client process measured of one operation. */
export interface OmCallFigures {
  transport: OmCallTransport;
  operation: OmCallOp;
  opsPerSec: number;
  cpuMicrosPerOp: number;
  bytesPerOp: number;
}

export interface OmCallCostOptions {
  ops: readonly OmCallOp[];
  transports: readonly OmCallTransport[];
  rounds: number;
  windowMs: number;
  /** Keys the listing lists (and the lookups cycle through). */
  listKeys: number;
  /** Paths of om-call-cost-client.ts and the embedded cluster's module (the caller knows where it runs from). */
  clientModule: string;
  clusterModule: string;
}

/** Every round's figures, keyed `transport operation`. */
export async function measureOmCallCost(
  options: OmCallCostOptions,
  onCell?: (round: number, figures: OmCallFigures) => void,
): Promise<Map<string, OmCallFigures[]>> {
  await using cluster = startChild<ClusterCall, unknown>(options.clusterModule, {
    name: 'om-call-cost cluster',
    args: ['3', ''],
  });
  await cluster.ready;
  const info = (await cluster.call({ op: 'info' })) as ClusterInfo;
  const results = new Map<string, OmCallFigures[]>();
  for (let round = 0; round < options.rounds; round++) {
    const order = options.transports.map(
      (_, i) => options.transports[(i + round) % options.transports.length]!,
    );
    for (const transport of order) {
      for (const operation of options.ops) {
        await using client = startChild<OmCallClientCall, object>(options.clientModule, {
          name: `om-call-cost ${transport} ${operation}`,
        });
        await client.ready;
        await client.call({
          op: 'init',
          transport,
          omAddress: transport === 'grpc' ? info.omAddress : info.omRpcAddress,
          listKeys: options.listKeys,
        });
        const measured = (await client.call(
          { op: 'measure', operation, windowMs: options.windowMs },
          { timeoutMs: options.windowMs * 4 + 60_000 },
        )) as Omit<OmCallFigures, 'transport' | 'operation'>;
        const figures: OmCallFigures = { transport, operation, ...measured };
        const key = `${transport} ${operation}`;
        results.set(key, [...(results.get(key) ?? []), figures]);
        onCell?.(round + 1, figures);
      }
    }
  }
  return results;
}

/** The probe's table: per operation and transport the median (min–max) of the rounds. */
export function omCallCostTable(results: ReadonlyMap<string, readonly OmCallFigures[]>): string {
  const cell = (values: number[]): string => {
    const s = summarize(values);
    return formatSiWithRange(s.median, s.min, s.max);
  };
  const rows = [...results.values()].sort(
    (a, b) =>
      OM_CALL_OPS.indexOf(a[0]!.operation) - OM_CALL_OPS.indexOf(b[0]!.operation) ||
      OM_CALL_TRANSPORTS.indexOf(a[0]!.transport) - OM_CALL_TRANSPORTS.indexOf(b[0]!.transport),
  );
  return markdownTable(
    [
      'operation',
      'transport',
      { header: 'ops/s', align: 'right' },
      { header: 'CPU µs per op', align: 'right' },
      { header: 'bytes allocated per op', align: 'right' },
    ],
    rows.map((rounds) => [
      rounds[0]!.operation,
      rounds[0]!.transport,
      cell(rounds.map((r) => r.opsPerSec)),
      cell(rounds.map((r) => r.cpuMicrosPerOp)),
      cell(rounds.map((r) => r.bytesPerOp)),
    ]),
  );
}
