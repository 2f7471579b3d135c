// The cluster a run writes to, behind one shape: fastpath's embedded mini cluster in a process of
// its own (ozone-read's embedded-cluster-main, whose datanodes serve their pipelines' Raft
// groups), or Apache Ozone's MiniOzoneCluster (tools/ozone).
import { startBenchmarkOzoneCluster } from '../ozone-read/start-real-ozone-cluster.js';
import { startEmbeddedBenchmarkCluster } from '../ozone-read/start-embedded-cluster.js';
import { type ScenarioContext } from '../../harness/index.js';
import { keysPerPass, type OzoneWriteSettings } from './ozone-write-settings.js';

export interface WriteCluster extends AsyncDisposable {
  readonly kind: 'embedded' | 'real';
  /** `host:port` of the OM's gRPC service (fastpath's client). */
  readonly omAddress: string;
  /** The OM's Hadoop RPC address (Ozone's Java client); undefined on the embedded cluster. */
  readonly omRpcAddress: string | undefined;
  readonly description: string;
  /** Ozone's version on the real cluster, else undefined. */
  readonly ozoneVersion: string | undefined;
  /** The cluster's process (the embedded cluster's Node process, the real cluster's JVM), where known. */
  readonly pid: number | undefined;
}

/**
 * The real cluster's JVM heap: SCM, OM and three datanodes, whose Ratis logs and state machines
 * hold what is in flight three times over; the largest pass of a row sets how much that is.
 */
export function realClusterHeapMb(s: Pick<OzoneWriteSettings, 'rows' | 'shapes'>): number {
  const largestPassMiB = Math.max(
    ...s.rows.map((id) => (keysPerPass(s.shapes[id]) * s.shapes[id].keySizeBytes) / (1024 * 1024)),
  );
  return Math.min(4096, 1536 + Math.ceil(6 * largestPassMiB));
}

export async function startWriteCluster(ctx: ScenarioContext<OzoneWriteSettings>): Promise<WriteCluster> {
  const s = ctx.flags;
  if (s.cluster === 'embedded') {
    const { child, info } = await startEmbeddedBenchmarkCluster(ctx, {
      datanodes: s.datanodes,
      dataStream: s.dataStream,
    });
    return {
      kind: 'embedded',
      omAddress: info.omAddress,
      omRpcAddress: undefined,
      ozoneVersion: undefined,
      pid: child.pid,
      description: `fastpath's embedded mini cluster: an OM and ${info.datanodes.length} datanodes in one Node process of their own, on loopback, each datanode serving its pipelines' Raft groups on its RATIS port${s.dataStream ? ' and Ratis DataStream on a port of its own' : ''}`,
      [Symbol.asyncDispose]: () => child.close(),
    };
  }
  const heapMb = realClusterHeapMb(s);
  const ec = s.rows.some((id) => s.shapes[id].replication !== 'THREE');
  const cluster = await startBenchmarkOzoneCluster(ctx, {
    datanodes: s.datanodes,
    heapMb,
    ...(s.dataStream && { dataStream: true }),
  });
  return {
    kind: 'real',
    omAddress: cluster.omGrpcAddress,
    omRpcAddress: cluster.omRpcAddress,
    ozoneVersion: cluster.ozoneVersion,
    pid: cluster.pid,
    description: `Apache Ozone ${cluster.ozoneVersion} MiniOzoneCluster (Hadoop ${cluster.hadoopVersion}): SCM, OM and ${cluster.datanodes.length} datanodes in one JVM (-Xmx${heapMb}m), RATIS/THREE${ec ? ' and EC pipelines' : ''}${s.dataStream ? ', Ratis DataStream on the datanodes' : ''}, on loopback`,
    [Symbol.asyncDispose]: () => cluster.stop(),
  };
}
