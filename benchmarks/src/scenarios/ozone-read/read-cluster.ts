// The cluster a run reads from, behind one shape: the embedded mini cluster in its own process
// (with datanode byte counters), or Apache Ozone's MiniOzoneCluster (tools/ozone), whose keys are
// written by Ozone's own Java client and whose datanodes expose no counters here; the real one
// at a security level (`--security`), with what its clients need to log in.
import { createRequire } from 'node:module';
import type { RealOzoneCluster, RealS3Gateway } from '@fastpath/ozone-fixture';
import { startBenchmarkOzoneCluster } from './start-real-ozone-cluster.js';
import { startEmbeddedBenchmarkCluster } from './start-embedded-cluster.js';
import { type ChildHandle, type ScenarioContext } from '../../harness/index.js';
import type { ClusterCounters } from './embedded-cluster-main.js';
import type { FileSetSpec, ReaderCall, WriteResult } from './fastpath-reader-main.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';
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
  /** Whether its datanodes serve short-circuit reads, on which socket, or why not. */
  readonly shortCircuit: ShortCircuitAvailability;
  /** Writes a file set: through `writer` (fastpath's client) on the embedded cluster, Ozone's Java client on the real one. */
  writeSet(set: FileSetSpec, writer: ChildHandle<ReaderCall, unknown>): Promise<WriteResult & { by: string }>;
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
    description: `fastpath's embedded mini cluster: an OM and ${info.datanodes.length} datanodes in one Node process of their own, on loopback${info.domainSocketPath ? ', short-circuit reads served on a Unix domain socket per datanode' : ''}`,
    async writeSet(set, writer) {
      const r = (await writer.call(
        { op: 'write', omAddress: info.omAddress, set },
        { timeoutMs: 1_800_000 },
      )) as WriteResult;
      return { ...r, by: "fastpath's client" };
    },
    async bytesSent() {
      return ((await child.call({ op: 'counters' })) as ClusterCounters).bytesRead;
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
  const fileBytes = s.files * s.fileSizeBytes * s.rows.length;
  // The datanodes hold every file three times in one JVM; the heap need not: Ratis buffers chunks.
  // The S3 gateway, when it runs, shares the heap: each GET in flight holds its own read buffers.
  const heapMb =
    Math.max(1024, Math.min(4096, 768 + Math.ceil(fileBytes / (1024 * 1024) / 4))) + (s.s3 ? 512 : 0);
  const security = clusterSecurityOptions(level, kdc);
  const cluster: RealOzoneCluster = await startBenchmarkOzoneCluster(ctx, {
    datanodes: s.datanodes,
    heapMb,
    ...(security && { security }),
  });
  const login = clientLogin(cluster, level);
  return {
    kind: 'real',
    level,
    login,
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
        };
      });
      const written = await cluster.writeKeys(keys);
      for (const w of written)
        if (w.bytesPerChecksum !== set.bytesPerChecksum)
          throw new Error(
            `${w.key}: written with ${w.bytesPerChecksum} bytes per checksum, not ${set.bytesPerChecksum}`,
          );
      return {
        bytes: set.paths.length * set.fileSizeBytes,
        ms: performance.now() - started,
        by: "Ozone's Java client",
      };
    },
    bytesSent: () => Promise.resolve(null),
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
