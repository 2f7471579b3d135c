// The cluster a run reads from, behind one shape: the embedded mini cluster in its own process
// (with datanode byte counters), or Apache Ozone's MiniOzoneCluster (tools/ozone), whose keys are
// written by Ozone's own Java client and whose datanodes expose no counters here; the real one
// at a security level (`--security`), with what its clients need to log in.
import { createRequire } from 'node:module';
import type { RealOzoneCluster, RealS3Gateway } from '@fastpath/ozone-fixture';
import { startBenchmarkOzoneCluster } from './start-real-ozone-cluster.js';
import { startEmbeddedBenchmarkCluster } from './start-embedded-cluster.js';
import { type ChildHandle, type ScenarioContext } from '../../harness/index.js';
import type { ClusterCounters, EcWriteResult } from './embedded-cluster-main.js';
import { commonDataReplica, type DataReplicaHolder, type GroupMember } from './ec-data-replica.js';
import type { FileSetSpec, ReaderCall, WriteResult } from './fastpath-reader-main.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';
import { fileSetId, READ_ROWS } from './ozone-read-cases.js';
import { readTree } from './read-tree.js';
import {
  clientLogin,
  clusterSecurityOptions,
  javaSecurityArgs,
  type BenchmarkKdc,
  type ClientLogin,
} from './cluster-security.js';
import { SECURITY_LEVEL_LABEL, type SecurityLevel } from './security-levels.js';
import type { S3Object } from './s3-reader-main.js';
import {
  REAL_CLUSTER_NO_SHORT_CIRCUIT,
  type ShortCircuitAvailability,
} from './short-circuit-availability.js';

/** Whether the cluster's files can be read through Ozone's S3 gateway, and how; or why not. */
export type S3Access =
  | {
      available: true;
      gateway: RealS3Gateway;
      /** The version of `@aws-sdk/client-s3` that reads. */
      sdkVersion: string;
      /** The S3 objects of a file set, its Ozone bucket linked into the gateway's volume first. */
      objects(set: FileSetSpec): Promise<S3Object[]>;
    }
  | { available: false; reason: string };

export interface ReadCluster extends AsyncDisposable {
  readonly kind: 'embedded' | 'real';
  readonly level: SecurityLevel;
  /**
   * `host:port` of the OM for fastpath's client: its gRPC service, or on a secure cluster its
   * Hadoop RPC port (the only one where the OM speaks SASL).
   */
  readonly omAddress: string;
  /** On a secure cluster: how the clients log in (the Kerberos user's keytab, the security keys, TLS). */
  readonly login: ClientLogin | undefined;
  /** What Ozone's Java client's JVM needs on a secure cluster (none otherwise). */
  readonly javaArgs: { jvmArgs: string[]; classpathPrefix: string[] };
  /** The OM's Hadoop RPC address (Ozone's Java client); undefined on the embedded cluster. */
  readonly omRpcAddress: string | undefined;
  readonly description: string;
  /** The cluster's process (the embedded cluster's Node process, the real cluster's JVM), where known. */
  readonly pid: number | undefined;
  /** Whether its datanodes serve short-circuit reads, on which socket, or why not. */
  readonly shortCircuit: ShortCircuitAvailability;
  /**
   * Writes a file set: through `writer` (fastpath's client) on the embedded cluster, Ozone's Java
   * client on the real one; an EC set on the embedded cluster by its striper, in its process.
   */
  writeSet(set: FileSetSpec, writer: ChildHandle<ReaderCall, unknown>): Promise<WriteResult & { by: string }>;
  /** The datanode holding one data replica index of every block group of the written EC set. */
  dataReplicaHolder(set: FileSetSpec): Promise<DataReplicaHolder>;
  /** Stops a datanode (its data kept) until `restartDatanode`. */
  stopDatanode(uuid: string): Promise<void>;
  /** Starts a stopped datanode again, on its ports, with its data. */
  restartDatanode(uuid: string): Promise<void>;
  /** ReadChunk and ReadBlock bytes the datanodes sent so far, or null where the cluster has no counters. */
  bytesSent(): Promise<number | null>;
  /** Reads every file of the cluster's data once (page cache); bytes read, or null when not done. */
  warm(): Promise<number | null>;
  /** Starts Ozone's S3 gateway beside the cluster (real cluster only); never throws: says why not. */
  s3(): Promise<S3Access>;
}

export async function startReadCluster(
  ctx: ScenarioContext<OzoneReadSettings>,
  level: SecurityLevel = 'none',
  kdc?: BenchmarkKdc,
): Promise<ReadCluster> {
  return ctx.flags.cluster === 'real' ? startReal(ctx, level, kdc) : startEmbedded(ctx);
}

async function startEmbedded(ctx: ScenarioContext<OzoneReadSettings>): Promise<ReadCluster> {
  const { child, info } = await startEmbeddedBenchmarkCluster(ctx, { datanodes: ctx.flags.datanodes });
  // Each EC file's block groups as written: the datanode of each replica index.
  const ecGroups = new Map<string, GroupMember[][]>();
  return {
    kind: 'embedded',
    level: 'none',
    login: undefined,
    javaArgs: { jvmArgs: [], classpathPrefix: [] },
    shortCircuit: info.domainSocketPath
      ? { available: true, domainSocketPath: info.domainSocketPath }
      : {
          available: false,
          reason: `the embedded datanodes serve no domain socket here (${info.shortCircuitUnavailable ?? 'unknown'})`,
        },
    omAddress: info.omAddress,
    omRpcAddress: undefined,
    pid: child.pid,
    description: `fastpath's embedded mini cluster: an OM and ${info.datanodes.length} datanodes in one Node process of their own, on loopback${info.domainSocketPath ? ', short-circuit reads served on a Unix domain socket per datanode' : ''}`,
    async writeSet(set, writer) {
      if (set.ec) {
        const ec = set.ec;
        let ms = 0;
        for (const [i, path] of set.paths.entries()) {
          const [, volume, bucket, key] = path.split('/');
          const w = (await child.call(
            {
              op: 'writeEc',
              volume: volume!,
              bucket: bucket!,
              key: key!,
              sizeBytes: set.fileSizeBytes,
              seed: set.seeds[i]!,
              config: { codec: 'rs', data: ec.dataUnits, parity: ec.parityUnits, ecChunkSize: ec.cellBytes },
              bytesPerChecksum: set.bytesPerChecksum,
              blockGroupBytes: ec.groupBytes,
            },
            { timeoutMs: 600_000 },
          )) as EcWriteResult;
          ms += w.ms;
          ecGroups.set(
            path,
            w.groups.map((g) =>
              g.datanodes.map((datanodeUuid, j) => ({ datanodeUuid, replicaIndex: j + 1 })),
            ),
          );
        }
        return {
          bytes: set.paths.length * set.fileSizeBytes,
          ms,
          by: "the embedded cluster's EC striper (Ozone's EC layout)",
        };
      }
      const r = (await writer.call(
        { op: 'write', omAddress: info.omAddress, set },
        { timeoutMs: 1_800_000 },
      )) as WriteResult;
      return { ...r, by: "fastpath's client" };
    },
    async bytesSent() {
      return ((await child.call({ op: 'counters' })) as ClusterCounters).bytesRead;
    },
    dataReplicaHolder(set) {
      const files = set.paths.map((p) => {
        const groups = ecGroups.get(p);
        if (!groups) throw new Error(`${p}: not written as an EC file here`);
        return groups;
      });
      return Promise.resolve(commonDataReplica(files, set.ec?.dataUnits ?? 0));
    },
    async stopDatanode(uuid) {
      await child.call({ op: 'stopDatanode', uuid }, { timeoutMs: 60_000 });
    },
    async restartDatanode(uuid) {
      await child.call({ op: 'restartDatanode', uuid }, { timeoutMs: 120_000 });
    },
    async warm() {
      return ((await child.call({ op: 'warm' }, { timeoutMs: 600_000 })) as { bytes: number }).bytes;
    },
    s3: () =>
      Promise.resolve({
        available: false,
        reason: "the embedded cluster has no S3 gateway (Ozone's gateway runs with --cluster real)",
      }),
    async [Symbol.asyncDispose]() {
      await child.close();
    },
  };
}

async function startReal(
  ctx: ScenarioContext<OzoneReadSettings>,
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
): Promise<ReadCluster> {
  const s = ctx.flags;
  const fileBytes = s.files * s.fileSizeBytes * new Set(s.rows.map((r) => fileSetId(READ_ROWS[r]))).size;
  // The datanodes hold every file three times in one JVM; the heap need not: Ratis buffers chunks.
  // The S3 gateway, when it runs, shares the heap: each GET in flight holds its own read buffers.
  const heapMb =
    Math.max(1024, Math.min(4096, 768 + Math.ceil(fileBytes / (1024 * 1024) / 4))) + (s.s3 ? 512 : 0);
  const security = clusterSecurityOptions(level, kdc);
  const cluster: RealOzoneCluster = await startBenchmarkOzoneCluster(ctx, {
    datanodes: s.datanodes,
    heapMb,
    ...(security && { security }),
    // Every EC file of one config on the same d + p datanodes: one stopped datanode degrades them all.
    ecPipelineMinimum: 1,
  });
  const login = clientLogin(cluster, level);
  return {
    kind: 'real',
    level,
    login,
    pid: cluster.pid,
    javaArgs: javaSecurityArgs(cluster),
    shortCircuit: { available: false, reason: REAL_CLUSTER_NO_SHORT_CIRCUIT },
    omAddress: login === undefined ? cluster.omGrpcAddress : cluster.omRpcAddress,
    omRpcAddress: cluster.omRpcAddress,
    description:
      `Apache Ozone ${cluster.ozoneVersion} MiniOzoneCluster (Hadoop ${cluster.hadoopVersion}): SCM, OM and ${cluster.datanodes.length} datanodes in one JVM, RATIS/THREE, on loopback` +
      (level === 'none'
        ? ''
        : `; security: ${SECURITY_LEVEL_LABEL[level]} (realm ${cluster.security?.realm ?? '?'}, RPC protection ${cluster.security?.rpcProtection ?? '?'}, datanode TLS ${cluster.security?.tls === true ? 'on' : 'off'})`),
    async writeSet(set) {
      const started = performance.now();
      const keys = set.paths.map((p, i) => {
        const [, volume, bucket, key] = p.split('/');
        return {
          volume: volume!,
          bucket: bucket!,
          key: key!,
          size: set.fileSizeBytes,
          seed: set.seeds[i]!,
          checksumType: 'CRC32' as const,
          bytesPerChecksum: set.bytesPerChecksum,
          // EC: the internal block size, so that a group holds `groupBytes` of the key.
          ...(set.ec && {
            replication: set.ec.replication,
            blockSizeBytes: set.ec.groupBytes / set.ec.dataUnits,
          }),
        };
      });
      const written = await cluster.writeKeys(keys);
      for (const w of written) {
        if (w.bytesPerChecksum !== set.bytesPerChecksum)
          throw new Error(
            `${w.key}: written with ${w.bytesPerChecksum} bytes per checksum, not ${set.bytesPerChecksum}`,
          );
        if (set.ec && w.replication !== set.ec.replication)
          throw new Error(`${w.key}: written as ${w.replication}, not ${set.ec.replication}`);
      }
      return {
        bytes: set.paths.length * set.fileSizeBytes,
        ms: performance.now() - started,
        by: "Ozone's Java client",
      };
    },
    bytesSent: () => Promise.resolve(null),
    async dataReplicaHolder(set) {
      const files = await Promise.all(
        set.paths.map(async (p) => {
          const [, volume, bucket, key] = p.split('/');
          const found = await cluster.lookupKey(volume!, bucket!, key!);
          if (!found.found) throw new Error(`${p}: not found after it was written`);
          return found.blocks.map((b) => b.replicas);
        }),
      );
      return commonDataReplica(files, set.ec?.dataUnits ?? 0);
    },
    stopDatanode: (uuid) => cluster.stopDatanode(uuid),
    restartDatanode: (uuid) => cluster.restartDatanode(uuid),
    async s3() {
      if (level !== 'none')
        return {
          available: false,
          reason:
            "Ozone's S3 gateway does not start on a secure cluster here (it would need a principal and keytab of its own)",
        };
      let gateway: RealS3Gateway;
      try {
        gateway = await cluster.startS3Gateway();
      } catch (err) {
        const e = err as Error & { code?: string };
        return { available: false, reason: `${e.name}${e.code ? ` (${e.code})` : ''}: ${e.message}` };
      }
      ctx.log(`Ozone's S3 gateway: ${gateway.endpoint}, buckets of the volume ${gateway.volume}`);
      const linked = new Set<string>();
      return {
        available: true,
        gateway,
        sdkVersion: String(
          (
            createRequire(ctx.sourcePath('index.ts'))('@aws-sdk/client-s3/package.json') as {
              version: string;
            }
          ).version,
        ),
        async objects(set) {
          return Promise.all(
            set.paths.map(async (p) => {
              const [, volume, bucket, key] = p.split('/');
              // One S3 bucket per Ozone bucket: "<volume>-<bucket>", a link to it.
              const name = `${volume!}-${bucket!}`;
              if (!linked.has(name)) {
                linked.add(name);
                await cluster.linkS3Bucket({ name, volume: volume!, bucket: bucket! });
              }
              return { bucket: name, key: key! };
            }),
          );
        },
      };
    },
    async warm() {
      let bytes = 0;
      for (const d of cluster.datanodes) for (const dir of d.dataDirs) bytes += await readTree(dir);
      return bytes;
    },
    async [Symbol.asyncDispose]() {
      await cluster.stop();
    },
  };
}
