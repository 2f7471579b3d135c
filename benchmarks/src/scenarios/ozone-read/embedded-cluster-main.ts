// The embedded mini cluster (OM and datanodes) in its own process, so the reader's process holds
// the client only. Calls: `info` (addresses), `counters` (what the datanodes sent, summed),
// `warm` (reads every block file once, so the measured reads find the data in the page cache).
import { startMiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import { readTree } from './read-tree.js';

export type ClusterCall = { op: 'info' } | { op: 'counters' } | { op: 'warm' };

export interface ClusterInfo {
  omAddress: string;
  dir: string;
  datanodes: { uuid: string; address: string }[];
}

export interface ClusterCounters {
  /** ReadChunk data bytes sent, all datanodes. */
  bytesRead: number;
  requests: number;
  byCommand: Record<string, number>;
}

const datanodes = Number(process.argv[2] ?? '3');
const cluster = await startMiniOzoneCluster({ datanodes });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cluster.close().then(() => process.exit(0)));
process.once('disconnect', () => void cluster.close().then(() => process.exit(0)));

serveCalls<ClusterCall, ClusterInfo | ClusterCounters | { bytes: number }>(async (call) => {
  if (call.op === 'info')
    return {
      omAddress: cluster.omAddress,
      dir: cluster.dir,
      datanodes: cluster.datanodes.map((d) => ({ uuid: d.uuid, address: d.address })),
    };
  if (call.op === 'warm') return { bytes: await readTree(cluster.dir) };
  const all = cluster.counters();
  const byCommand: Record<string, number> = {};
  for (const c of all)
    for (const [k, v] of Object.entries(c.byCommand)) byCommand[k] = (byCommand[k] ?? 0) + v;
  return {
    bytesRead: all.reduce((n, c) => n + c.bytesRead, 0),
    requests: all.reduce((n, c) => n + c.requests, 0),
    byCommand,
  };
});
