// Starting fastpath's embedded mini cluster (embedded-cluster-main.ts) in a process of its own for
// a benchmark, the one copy the Ozone scenarios share (as start-real-ozone-cluster.ts is for
// Apache Ozone's): the command recorded in the results folder, its log file, its addresses in the
// run log; the process closed again if it does not come up.
import { startChild, type ChildHandle, type ScenarioContext } from '../../harness/index.js';
import type { ClusterCall, ClusterInfo } from './embedded-cluster-main.js';

export interface EmbeddedBenchmarkCluster {
  /** The cluster's process: `call` for counters and warming, `close()` to stop it. */
  readonly child: ChildHandle<ClusterCall, unknown>;
  /** Its OM and datanode addresses. */
  readonly info: ClusterInfo;
}

export async function startEmbeddedBenchmarkCluster(
  ctx: ScenarioContext<unknown>,
  options: {
    datanodes: number;
    /** The OM's key provider (`kms://http@host:port/kms`), for encrypted buckets. */
    keyProviderPath?: string;
    /** Names the process and its log file (default `embedded-cluster`), when a run starts several. */
    name?: string;
    /** What commands.txt says of it, after "the embedded mini cluster (OM and datanodes) in its own process". */
    purpose?: string;
    /** The datanodes also serve Ratis DataStream (`RATIS_DATASTREAM` ports in the pipelines). */
    dataStream?: boolean;
  },
): Promise<EmbeddedBenchmarkCluster> {
  const name = options.name ?? 'embedded-cluster';
  const child = startChild<ClusterCall, unknown>(
    ctx.sourcePath('scenarios/ozone-read/embedded-cluster-main.ts'),
    {
      name,
      args: [
        String(options.datanodes),
        options.keyProviderPath ?? '',
        ...(options.dataStream ? ['datastream'] : []),
      ],
      logFile: ctx.results.logPath(name),
      onSpawn: (c) =>
        ctx.results.recordCommand(
          c,
          `the embedded mini cluster (OM and datanodes) in its own process${options.purpose ? `, ${options.purpose}` : ''}`,
        ),
    },
  );
  try {
    await child.ready;
    const info = (await child.call({ op: 'info' })) as ClusterInfo;
    ctx.log(
      `embedded cluster: OM gRPC ${info.omAddress}, Hadoop RPC ${info.omRpcAddress}, datanodes ${info.datanodes.map((d) => d.address).join(' ')}`,
    );
    return { child, info };
  } catch (err) {
    await child.close();
    throw err;
  }
}
