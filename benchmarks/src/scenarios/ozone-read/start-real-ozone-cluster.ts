// Starting Apache Ozone's MiniOzoneCluster for a benchmark, the one copy that ozone-read and
// ozone-write share: the note while it starts (about a minute), the command recorded in the
// results folder, the ready line in the run log.
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import type { ScenarioContext } from '../../harness/index.js';

export async function startBenchmarkOzoneCluster(
  ctx: ScenarioContext<unknown>,
  options: {
    datanodes: number;
    heapMb: number;
    /** ozone-site.xml entries on top of the fixture's (e.g. the OM's key provider). */
    configuration?: Readonly<Record<string, string>>;
  },
): Promise<RealOzoneCluster> {
  const { datanodes, heapMb, configuration } = options;
  ctx.note(
    `starting Apache Ozone's MiniOzoneCluster (${datanodes} datanodes, -Xmx${heapMb}m); this takes about a minute`,
  );
  const cluster = await startRealOzoneCluster({
    datanodes,
    heapMb,
    ...(configuration && { configuration }),
    onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`),
  });
  ctx.results.recordCommand(
    `java -Xmx${heapMb}m … OzoneClusterLauncher (pid ${cluster.pid}, log ${cluster.logFile})`,
    "Apache Ozone's MiniOzoneCluster (tools/ozone)",
  );
  ctx.log(
    `real cluster ${cluster.ozoneVersion}: OM gRPC ${cluster.omGrpcAddress}, RPC ${cluster.omRpcAddress}, ready in ${cluster.startMs} ms`,
  );
  return cluster;
}
