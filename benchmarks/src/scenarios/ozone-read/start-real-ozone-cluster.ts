// Starting Apache Ozone's MiniOzoneCluster for a benchmark, the one copy that ozone-read,
// ozone-write, ozone-tde and ozone-meta share: the note while it starts (about a minute; more with
// OM HA), the command recorded in the results folder, the ready line in the run log.
import {
  startRealOzoneCluster,
  type RealOzoneCluster,
  type RealOzoneSecurityOptions,
} from '@fastpath/ozone-fixture';
import type { ScenarioContext } from '../../harness/index.js';

export async function startBenchmarkOzoneCluster(
  ctx: ScenarioContext<unknown>,
  options: {
    datanodes: number;
    heapMb: number;
    /** ozone-site.xml entries on top of the fixture's (e.g. the OM's key provider). */
    configuration?: Readonly<Record<string, string>>;
    /** OM HA: this many OMs (MiniOzoneHAClusterImpl) under the fixture's service id; 0 or absent: one OM. */
    omHa?: number;
    /** A secure cluster: Kerberos on the given KDC, with `tls` also RPC privacy and datanode TLS. */
    security?: RealOzoneSecurityOptions;
    /** SCM's EC pipelines per EC config (`ozone.scm.ec.pipeline.minimum`); default the fixture's. */
    ecPipelineMinimum?: number;
    /** Ratis DataStream on the datanodes (`hdds.container.ratis.datastream.enabled`). */
    dataStream?: boolean;
  },
): Promise<RealOzoneCluster> {
  const { datanodes, heapMb, configuration, omHa = 0, security, ecPipelineMinimum, dataStream } = options;
  const oms = omHa > 0 ? `${omHa} OMs, ` : '';
  const secure = security === undefined ? '' : `, Kerberos${security.tls ? ' with privacy and TLS' : ''}`;
  ctx.note(
    `starting Apache Ozone's MiniOzoneCluster (${oms}${datanodes} datanodes, -Xmx${heapMb}m${secure}); this takes ${omHa > 0 ? 'a few minutes' : 'about a minute'}`,
  );
  const cluster = await startRealOzoneCluster({
    datanodes,
    heapMb,
    ...(configuration && { configuration }),
    ...(omHa > 0 && { omHa }),
    ...(security && { security }),
    ...(ecPipelineMinimum !== undefined && { ecPipelineMinimum }),
    ...(dataStream && { dataStream }),
    onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`),
  });
  ctx.results.recordCommand(
    `java -Xmx${heapMb}m … OzoneClusterLauncher (pid ${cluster.pid}, log ${cluster.logFile})`,
    "Apache Ozone's MiniOzoneCluster (tools/ozone)",
  );
  ctx.log(
    `real cluster ${cluster.ozoneVersion}: OM gRPC ${cluster.omGrpcAddress}, RPC ${cluster.omRpcAddress}` +
      (cluster.omServiceId === undefined
        ? ''
        : `, service ${cluster.omServiceId} (${cluster.oms.map((o) => `${o.nodeId} ${o.rpcAddress} gRPC ${o.grpcAddress}`).join('; ')})`) +
      `, ready in ${cluster.startMs} ms`,
  );
  return cluster;
}
