// The cluster a run measures, and how each client reaches its OM: fastpath's embedded mini
// cluster (ozone-read's process; its OM answers Hadoop RPC and gRPC), Apache Ozone's
// MiniOzoneCluster with one OM, or with three OMs under a service id (every client through the id,
// failing over as it would in production). A real cluster with one OM can be secure: Kerberos,
// or Kerberos with privacy and TLS (`--security`), every client logged in as its Kerberos user.
import { type ScenarioContext } from '../../harness/index.js';
import {
  clientLogin,
  clusterSecurityOptions,
  javaSecurityArgs,
  type BenchmarkKdc,
  type ClientLogin,
} from '../ozone-read/cluster-security.js';
import { SECURITY_LEVEL_LABEL, type SecurityLevel } from '../ozone-read/security-levels.js';
import { startBenchmarkOzoneCluster } from '../ozone-read/start-real-ozone-cluster.js';
import { startEmbeddedBenchmarkCluster } from '../ozone-read/start-embedded-cluster.js';
import type { OmGrpcChannel } from '@fastpath/ozone-fs-client';
import type { MetaClient, MetaTarget } from './meta-workload.js';
import type { OzoneMetaSettings } from './ozone-meta-settings.js';

/** `ozone.om.transport.class` for each of fastpath's two transports. */
export const OM_TRANSPORT_CLASS = Object.freeze({
  'fastpath-rpc': 'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory',
  'fastpath-grpc': 'org.apache.hadoop.ozone.om.protocolPB.GrpcOmTransportFactory',
});

export interface MetaCluster extends AsyncDisposable {
  readonly description: string;
  /** Ozone's version on a real cluster, else undefined. */
  readonly ozoneVersion: string | undefined;
  /** Where each client sends its OM calls. */
  target(client: MetaClient): MetaTarget;
  /** The cluster's process (its CPU is read around each window); undefined if it has none of its own. */
  readonly pid: number | undefined;
  /** What Ozone's Java client's JVM needs on a secure cluster (none otherwise). */
  readonly javaArgs: { jvmArgs: string[]; classpathPrefix: string[] };
}

/** Hadoop RPC and gRPC addresses of one OM, or an OM service's client properties. */
interface OmEndpoints {
  rpcAddress: string;
  grpcAddress: string;
  service?: { id: string; properties: Readonly<Record<string, string>> };
}

/**
 * A client's target: fastpath names its transport class (and, over gRPC, the session its calls
 * take when `grpcChannel` names one); Ozone's Java client speaks Hadoop RPC. On a secure cluster
 * every client gets its security keys and its log-in.
 */
export function clientTarget(
  client: MetaClient,
  om: OmEndpoints,
  login?: ClientLogin,
  grpcChannel?: OmGrpcChannel,
): MetaTarget {
  const transport: Record<string, string> =
    client === 'java' ? {} : { 'ozone.om.transport.class': OM_TRANSPORT_CLASS[client] };
  if (client === 'fastpath-grpc' && grpcChannel !== undefined)
    transport['ozone.client.om.grpc.channel'] = grpcChannel;
  const secure = login === undefined ? {} : { login };
  const security = login?.properties ?? {};
  if (om.service)
    return {
      omAddress: om.service.id,
      properties: { ...security, ...om.service.properties, ...transport },
      ...secure,
    };
  return {
    omAddress: client === 'fastpath-grpc' ? om.grpcAddress : om.rpcAddress,
    properties: { ...security, ...transport },
    ...secure,
  };
}

/** The real cluster's heap: the fixture's default for three OMs, a little more than its default for one. */
const REAL_HEAP_MB = { real: 1536, 'real-ha': 2048 } as const;

export async function startMetaCluster(
  ctx: ScenarioContext<OzoneMetaSettings>,
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
): Promise<MetaCluster> {
  const s = ctx.flags;
  if (s.cluster === 'embedded') {
    const { child, info } = await startEmbeddedBenchmarkCluster(ctx, { datanodes: s.datanodes });
    const om = { rpcAddress: info.omRpcAddress, grpcAddress: info.omAddress };
    return {
      description: `fastpath's embedded mini cluster: one OM (Hadoop RPC and gRPC) and ${info.datanodes.length} datanodes in one Node process of their own, on loopback`,
      ozoneVersion: undefined,
      pid: child.pid,
      target: (client) => clientTarget(client, om, undefined, s.omGrpcChannel),
      javaArgs: { jvmArgs: [], classpathPrefix: [] },
      [Symbol.asyncDispose]: () => child.close(),
    };
  }
  const ha = s.cluster === 'real-ha';
  const heapMb = REAL_HEAP_MB[s.cluster];
  const security = clusterSecurityOptions(level, kdc);
  const cluster = await startBenchmarkOzoneCluster(ctx, {
    datanodes: s.datanodes,
    heapMb,
    omHa: ha ? 3 : 0,
    ...(security && { security }),
  });
  const login = clientLogin(cluster, level);
  const om: OmEndpoints = {
    rpcAddress: cluster.omRpcAddress,
    grpcAddress: cluster.omGrpcAddress,
    ...(ha && cluster.omServiceId !== undefined
      ? { service: { id: cluster.omServiceId, properties: cluster.omClientProperties } }
      : {}),
  };
  const oms = ha ? `three OMs (service ${cluster.omServiceId}, Ratis between them)` : 'one OM';
  return {
    description:
      `Apache Ozone ${cluster.ozoneVersion} MiniOzoneCluster (Hadoop ${cluster.hadoopVersion}): SCM, ${oms} and ${cluster.datanodes.length} datanodes in one JVM (-Xmx${heapMb}m), on loopback` +
      (level === 'none'
        ? ''
        : `; security: ${SECURITY_LEVEL_LABEL[level]} (realm ${cluster.security?.realm ?? '?'}, RPC protection ${cluster.security?.rpcProtection ?? '?'})`),
    ozoneVersion: cluster.ozoneVersion,
    pid: cluster.pid,
    target: (client) => clientTarget(client, om, login, s.omGrpcChannel),
    javaArgs: javaSecurityArgs(cluster),
    [Symbol.asyncDispose]: () => cluster.stop(),
  };
}
