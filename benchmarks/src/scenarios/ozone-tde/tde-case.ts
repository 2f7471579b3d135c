// One case's systems: a fresh ZooKeeper for the KMS's delegation tokens, the KMS of the case
// (fastpath-kms in its fixed or original token mode, or Hadoop's KMS, started exactly as kms-http
// starts them) with the bucket key, and the Ozone cluster whose OM has that KMS as its key
// provider: fastpath's embedded mini cluster in a process of its own, or Apache Ozone's
// MiniOzoneCluster.
import { closeZooKeeperClient, connectZooKeeper, startZooKeeper } from '@fastpath/zookeeper-fixture';
import { type ScenarioContext } from '../../harness/index.js';
import type { CaseServer } from '../kms-http/case-server.js';
import { startFastpathCaseServer } from '../kms-http/fastpath-case-server.js';
import { startHadoopCaseServer } from '../kms-http/hadoop-case-server.js';
import { createBenchKey } from '../kms-http/kms-preflight.js';
import type { KmsServerBundle } from '../kms-http/kms-server-bundle.js';
import { KMS_VERSIONS } from '../kms-http/kms-versions.js';
import { startBenchmarkOzoneCluster } from '../ozone-read/start-real-ozone-cluster.js';
import { startEmbeddedBenchmarkCluster } from '../ozone-read/start-embedded-cluster.js';
import type { RealOzoneCluster } from '@fastpath/ozone-fixture';
import type { OzoneTdeSettings, TdeKmsVersion } from './ozone-tde-settings.js';
import { TDE_BUCKET_KEY } from './tde-workload.js';

export interface TdeCase extends AsyncDisposable {
  readonly kms: CaseServer;
  /** `http://127.0.0.1:<port>/kms` */
  readonly kmsUrl: string;
  /** What the KMS's identity checks found (versions, token mode). */
  readonly checks: string[];
  /** `host:port` of the OM's gRPC service (fastpath's client). */
  readonly omAddress: string;
  /** The real cluster (Ozone's Java client reads through it); undefined on the embedded one. */
  readonly real: RealOzoneCluster | undefined;
  /** The cluster's process (the embedded cluster's Node process, the real cluster's JVM), for its CPU. */
  readonly clusterPid: number | undefined;
  readonly clusterDescription: string;
}

/** The real cluster's JVM heap: small keys and one large key at a time. */
const REAL_HEAP_MB = 2048;

export async function startTdeCase(
  ctx: ScenarioContext<OzoneTdeSettings>,
  version: TdeKmsVersion,
  bundle: KmsServerBundle,
): Promise<TdeCase> {
  const s = ctx.flags;
  const id = `ozone-tde-${version}`;
  // What has started so far, stopped in reverse order when the case ends or fails to start.
  const started: Array<() => Promise<unknown>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of started.reverse())
      await stop().catch((err: unknown) => ctx.log(`${id}: stop failed: ${String(err)}`));
  };
  try {
    const v = KMS_VERSIONS[version];
    const packageDir = v.server === 'fastpath' ? await bundle.packageDir() : undefined;
    const zk = await startZooKeeper({ nodes: 1 });
    started.push(() => zk.close());
    const kms =
      v.server === 'hadoop'
        ? await startHadoopCaseServer(ctx, zk.connectString, id)
        : await startFastpathCaseServer(ctx, v, zk.connectString, id, packageDir!);
    started.push(async () => kms[Symbol.asyncDispose]());
    const admin = await connectZooKeeper(zk.connectString);
    let checks: string[];
    try {
      checks = await kms.identify(admin);
    } finally {
      await closeZooKeeperClient(admin);
    }
    await createBenchKey(kms.origin, TDE_BUCKET_KEY);
    const kmsUrl = `${kms.origin}/kms`;
    const providerPath = `kms://http@${kmsUrl.replace(/^http:\/\//, '')}`;
    if (s.cluster === 'embedded') {
      const { child, info } = await startEmbeddedBenchmarkCluster(ctx, {
        datanodes: s.datanodes,
        keyProviderPath: providerPath,
        name: `embedded-cluster-${version}`,
        purpose: `${v.label} as the OM's key provider`,
      });
      started.push(() => child.close());
      return {
        kms,
        kmsUrl,
        checks,
        omAddress: info.omAddress,
        real: undefined,
        clusterPid: child.pid,
        clusterDescription: `fastpath's embedded mini cluster: an OM (whose KMS client asks the KMS for one data key per new key) and ${info.datanodes.length} datanodes in one Node process of their own, on loopback`,
        [Symbol.asyncDispose]: stopAll,
      };
    }
    const cluster = await startBenchmarkOzoneCluster(ctx, {
      datanodes: s.datanodes,
      heapMb: REAL_HEAP_MB,
      configuration: { 'hadoop.security.key.provider.path': providerPath },
    });
    started.push(() => cluster.stop());
    return {
      kms,
      kmsUrl,
      checks,
      omAddress: cluster.omGrpcAddress,
      real: cluster,
      clusterPid: cluster.pid,
      clusterDescription: `Apache Ozone ${cluster.ozoneVersion} MiniOzoneCluster (Hadoop ${cluster.hadoopVersion}): SCM, OM (Hadoop's KMS client, with its queue of pre-made data keys) and ${cluster.datanodes.length} datanodes in one JVM (-Xmx${REAL_HEAP_MB}m), RATIS/THREE, on loopback`,
      [Symbol.asyncDispose]: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
