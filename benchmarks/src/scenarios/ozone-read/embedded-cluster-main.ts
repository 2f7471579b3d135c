// The embedded mini cluster (OM and datanodes) in its own process, so the reader's process holds
// the client only. Its datanodes also serve short-circuit reads on a Unix domain socket when the
// native addon loads; when it does not, the cluster serves gRPC only and says why. Calls: `info`
// (addresses, the socket), `counters` (what the datanodes sent, summed), `warm` (reads every block
// file once, so the measured reads find the data in the page cache).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import { readTree } from './read-tree.js';

export type ClusterCall = { op: 'info' } | { op: 'counters' } | { op: 'warm' };

export interface ClusterInfo {
  /** `host:port` of the OM's gRPC service. */
  omAddress: string;
  /** `host:port` of the same OM's Hadoop RPC server. */
  omRpcAddress: string;
  dir: string;
  datanodes: { uuid: string; address: string; domainSocketPath?: string }[];
  /** `ozone.domain.socket.path` for clients (`_PORT` = the datanode's port), when served. */
  domainSocketPath?: string;
  /** Why the datanodes serve no domain socket, when they do not. */
  shortCircuitUnavailable?: string;
}

export interface ClusterCounters {
  /** ReadChunk and ReadBlock data bytes sent over gRPC, all datanodes. */
  bytesRead: number;
  requests: number;
  byCommand: Record<string, number>;
  shortCircuitRequests: number;
  shortCircuitFdsPassed: number;
}

const datanodes = Number(process.argv[2] ?? '3');
// The OM's key provider (`kms://http@host:port/kms`), for encrypted buckets (ozone-tde); none: plain only.
const keyProviderPath = process.argv[3];
const omConfiguration = keyProviderPath
  ? { 'hadoop.security.key.provider.path': keyProviderPath }
  : undefined;
// Short, so the socket path stays under the 107 bytes a Unix socket address holds.
const socketDir = mkdtempSync(join(tmpdir(), 'ozr-sc-'));
const template = join(socketDir, 'dn-_PORT.sock');
let cluster: MiniOzoneCluster;
let unavailable: string | undefined;
try {
  cluster = await startMiniOzoneCluster({
    datanodes,
    domainSocketPath: template,
    ...(omConfiguration && { omConfiguration }),
  });
} catch (err) {
  unavailable = (err as Error).message;
  cluster = await startMiniOzoneCluster({ datanodes, ...(omConfiguration && { omConfiguration }) });
}
const stop = (): void =>
  void cluster.close().then(() => {
    rmSync(socketDir, { recursive: true, force: true });
    process.exit(0);
  });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
process.once('disconnect', stop);

serveCalls<ClusterCall, ClusterInfo | ClusterCounters | { bytes: number }>(async (call) => {
  if (call.op === 'info')
    return {
      omAddress: cluster.omAddress,
      omRpcAddress: cluster.omRpcAddress,
      dir: cluster.dir,
      datanodes: cluster.datanodes.map((d) => ({
        uuid: d.uuid,
        address: d.address,
        ...(d.domainSocketPath ? { domainSocketPath: d.domainSocketPath } : {}),
      })),
      ...(unavailable === undefined
        ? { domainSocketPath: template }
        : { shortCircuitUnavailable: unavailable }),
    };
  if (call.op === 'warm') return { bytes: await readTree(cluster.dir) };
  const all = cluster.counters();
  const byCommand: Record<string, number> = {};
  for (const c of all)
    for (const [k, v] of Object.entries(c.byCommand)) byCommand[k] = (byCommand[k] ?? 0) + v;
  const sum = (f: (c: (typeof all)[number]) => number): number => all.reduce((n, c) => n + f(c), 0);
  return {
    bytesRead: sum((c) => c.bytesRead + c.bytesStreamed),
    requests: sum((c) => c.requests),
    byCommand,
    shortCircuitRequests: sum((c) => c.shortCircuitRequests),
    shortCircuitFdsPassed: sum((c) => c.shortCircuitFdsPassed),
  };
});
