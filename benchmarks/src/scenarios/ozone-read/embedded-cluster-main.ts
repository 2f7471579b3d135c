// The embedded mini cluster (OM and datanodes) in its own process, so the reader's process holds
// the client only. Its datanodes also serve short-circuit reads on a Unix domain socket when the
// native addon loads; when it does not, the cluster serves gRPC only and says why. Calls: `info`
// (addresses, the socket), `counters` (what the datanodes sent, summed), `warm` (reads every block
// file once, so the measured reads find the data in the page cache), `writeEc` (an erasure-coded
// key laid out as Ozone's EC writer lays it, by the cluster's striper), `stopDatanode` and
// `restartDatanode` (the EC rows' datanode down).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOzoneClient, type EcReplicationConfig } from '@fastpath/ozone-fs-client';
import {
  contractKeyBytes,
  startMiniOzoneCluster,
  writeEcKey,
  type MiniOzoneCluster,
} from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import { readTree } from './read-tree.js';

export type ClusterCall =
  | { op: 'info' }
  | { op: 'counters' }
  | { op: 'warm' }
  | {
      op: 'writeEc';
      volume: string;
      bucket: string;
      key: string;
      sizeBytes: number;
      /** Seed of the content (contractKeyBytes). */
      seed: number;
      config: EcReplicationConfig;
      bytesPerChecksum: number;
      /** Key bytes per block group. */
      blockGroupBytes: number;
    }
  | { op: 'stopDatanode'; uuid: string }
  | { op: 'restartDatanode'; uuid: string };

/** What `writeEc` wrote: per block group, the datanode of each replica index 1..d+p. */
export interface EcWriteResult {
  ms: number;
  groups: { datanodes: string[] }[];
}

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
// The OM's key provider (`kms://http@host:port/kms`), for encrypted buckets (ozone-tde); empty or
// none: plain only.
const keyProviderPath = process.argv[3] || undefined;
// `datastream`: the datanodes also serve Ratis DataStream (ozone-write's streamed rows).
const dataStream = process.argv[4] === 'datastream';
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
    dataStream,
    domainSocketPath: template,
    ...(omConfiguration && { omConfiguration }),
  });
} catch (err) {
  unavailable = (err as Error).message;
  cluster = await startMiniOzoneCluster({
    datanodes,
    dataStream,
    ...(omConfiguration && { omConfiguration }),
  });
}
const stop = (): void =>
  void cluster.close().then(() => {
    rmSync(socketDir, { recursive: true, force: true });
    process.exit(0);
  });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
process.once('disconnect', stop);

type ClusterAnswer =
  ClusterInfo | ClusterCounters | EcWriteResult | { bytes: number } | Record<string, never>;

// Buckets made for EC keys (the striper writes into existing ones).
const buckets = new Set<string>();

async function ensureBucket(volume: string, bucket: string): Promise<void> {
  if (buckets.has(`${volume}/${bucket}`)) return;
  const client = createOzoneClient({ omAddress: cluster.omAddress });
  const exists = (err: unknown): boolean => /ALREADY_EXISTS/.test(String((err as { code?: string }).code));
  try {
    await client.createVolume(volume).catch((err: unknown) => {
      if (!exists(err)) throw err;
    });
    await client.createBucket(volume, bucket).catch((err: unknown) => {
      if (!exists(err)) throw err;
    });
  } finally {
    client.close();
  }
  buckets.add(`${volume}/${bucket}`);
}

serveCalls<ClusterCall, ClusterAnswer>(async (call) => {
  if (call.op === 'writeEc') {
    const started = performance.now();
    await ensureBucket(call.volume, call.bucket);
    const groups = await writeEcKey(cluster, {
      volume: call.volume,
      bucket: call.bucket,
      key: call.key,
      data: contractKeyBytes(call.sizeBytes, call.seed),
      config: call.config,
      blockGroupBytes: call.blockGroupBytes,
      checksumType: 'CRC32',
      bytesPerChecksum: call.bytesPerChecksum,
    });
    return {
      ms: performance.now() - started,
      groups: groups.map((g) => ({ datanodes: [...g.datanodes] })),
    };
  }
  if (call.op === 'stopDatanode') {
    await cluster.stopDatanode(call.uuid);
    return {};
  }
  if (call.op === 'restartDatanode') {
    await cluster.restartDatanode(call.uuid);
    return {};
  }
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
