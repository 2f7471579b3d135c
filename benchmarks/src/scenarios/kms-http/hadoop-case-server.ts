import { copyFile } from 'node:fs/promises';
import { startHadoopKms } from '@fastpath/hadoop-fixture';
import { zkGetData } from '@fastpath/zookeeper-fixture';
import { BenchmarkCheckError, type ScenarioContext } from '../../harness/index.js';
import type { CaseServer, ServerFigures, ZooKeeperAdmin } from './case-server.js';
import type { CaseServerSettings } from './kms-http-settings.js';
import { BENCH_USER } from './kms-preflight.js';
import { checkLoadedJars, openJarFiles, versionsOf } from './loaded-jars.js';

/** Heap of Hadoop's KMS JVM in the benchmark: enough that 32 connections of load never press it. */
export const HADOOP_BENCH_HEAP_MB = 512;
/** Hadoop's default `znodeWorkingPath`, as the fastpath versions use it. */
const SEQ_NUM_ZNODE = '/zkdtsm/ZKDTSMRoot/ZKDTSMSeqNumRoot';
/** The jars whose versions the report names: the KMS, its token store and its HTTP server. */
const REPORTED_ARTIFACTS = [
  'hadoop-kms',
  'hadoop-common',
  'hadoop-auth',
  'curator-framework',
  'curator-recipes',
  'zookeeper',
  'jetty-server',
];

/**
 * Apache Hadoop's KMS (KMSWebServer, through @fastpath/hadoop-fixture) with its ZooKeeper
 * delegation-token store on the case's ZooKeeper, sequence-number batch `--batch-size`. The
 * fixture's process registry kills the JVM when this process exits, and its watchdog when this
 * process dies abruptly.
 */
export async function startHadoopCaseServer(
  ctx: ScenarioContext<CaseServerSettings>,
  connectString: string,
  id: string,
  /** Kerberos mode (--auth kerberos): its kms-site.xml entries and the JVM flags of the realm. */
  kerberos?: { site: Readonly<Record<string, string>>; javaOptions: readonly string[] },
): Promise<CaseServer> {
  const s = ctx.flags;
  const kms = await startHadoopKms({
    zooKeeper: { connectString, seqNumBatchSize: s.seqNumBatchSize },
    heapMb: HADOOP_BENCH_HEAP_MB,
    ...(kerberos === undefined ? {} : { site: kerberos.site, javaOptions: kerberos.javaOptions }),
  });
  const version = kms.installation.hadoopVersion;
  ctx.results.recordCommand(
    `java -Xmx${HADOOP_BENCH_HEAP_MB}m org.apache.hadoop.crypto.key.kms.server.KMSWebServer ` +
      `(Apache Hadoop ${version}; kms-site.xml: ${kerberos === undefined ? 'simple' : 'Kerberos'} authentication, zk-dt-secret-manager.enable=true, ` +
      `zkConnectionString=${connectString}, token.seqnum.batch.size=${s.seqNumBatchSize})`,
    `Hadoop KMS, case ${id}`,
  );
  const origin = kms.url.replace(/\/kms$/, '');
  const jmx = async (query: string): Promise<Array<Record<string, unknown>>> => {
    const r = await fetch(`${origin}/jmx?qry=${encodeURIComponent(query)}&user.name=${BENCH_USER}`);
    // In Kerberos mode /jmx wants Kerberos too: the case then goes without the JVM's GC figures.
    if (!r.ok) {
      await r.arrayBuffer();
      return [];
    }
    const body = (await r.json()) as { beans?: Array<Record<string, unknown>> };
    return body.beans ?? [];
  };
  const gcMs = async (): Promise<number | null> => {
    const beans = await jmx('java.lang:type=GarbageCollector,*');
    const times = beans.map((b) => b['CollectionTime']).filter((t): t is number => typeof t === 'number');
    return times.length > 0 && times.length === beans.length ? times.reduce((a, b) => a + b, 0) : null;
  };
  const seqCounter = async (admin: ZooKeeperAdmin): Promise<number> => {
    const { data } = await zkGetData(admin, SEQ_NUM_ZNODE);
    if (data.length !== 4)
      throw new BenchmarkCheckError(`${SEQ_NUM_ZNODE} holds ${data.length} bytes, not a 4-byte counter`);
    return data.readInt32BE(0);
  };
  let loaded: string[] = [];
  return {
    origin,
    pid: kms.pid,
    eventLoopProbeDir: null,
    profileProbeDir: null,
    serverWarmupMs: s.jvmWarmupMs,
    get details() {
      return {
        server: 'hadoop-kms',
        hadoopVersion: version,
        loadedJars: versionsOf(loaded, REPORTED_ARTIFACTS),
        jvmStartMs: kms.startMs,
        heapMb: HADOOP_BENCH_HEAP_MB,
      };
    },
    async identify(admin) {
      const jars = openJarFiles(kms.pid);
      if (jars === null)
        throw new BenchmarkCheckError(`cannot read the open files of the Hadoop KMS (pid ${kms.pid})`);
      loaded = jars;
      const problems = checkLoadedJars(jars, [
        { artifact: 'hadoop-kms', version },
        { artifact: 'hadoop-common', version },
      ]);
      if (problems.length > 0)
        throw new BenchmarkCheckError(
          `the JVM is not the Hadoop KMS this case measures: ${problems.join('; ')}`,
        );
      // Hadoop reserves the first range of sequence numbers when it starts: the shared counter
      // holds exactly one batch, which shows the batch size in effect.
      const counter = await seqCounter(admin);
      if (counter !== s.seqNumBatchSize) {
        throw new BenchmarkCheckError(
          `the sequence counter is ${counter} after start, not one batch of ${s.seqNumBatchSize}`,
        );
      }
      return [
        `loaded jars: ${versionsOf(jars, REPORTED_ARTIFACTS).join(', ')}`,
        `ZooKeeper token store: ${SEQ_NUM_ZNODE} = ${counter} after start (one range of ${s.seqNumBatchSize} reserved)`,
      ];
    },
    async measure() {
      const before = await gcMs();
      return {
        async finish(): Promise<ServerFigures> {
          const after = await gcMs();
          ctx.results.writeText(`metrics/${id}.jmx.json`, JSON.stringify(await jmx('Hadoop:*'), null, 2));
          return {
            eventLoopDelayP99Ms: null,
            eventLoop: null,
            gcSeconds: before === null || after === null ? null : (after - before) / 1000,
            stageMeansMs: { allocate: null, prepare: null, persist: null, verify: null },
            persistBatchMean: null,
            zookeeperOpMeanMs: null,
          };
        },
      };
    },
    async afterwards(admin) {
      const counter = await seqCounter(admin);
      if (counter % s.seqNumBatchSize !== 0)
        throw new BenchmarkCheckError(`the sequence counter ${counter} is not a whole number of batches`);
      return [`sequence counter ${counter} after the run: whole batches of ${s.seqNumBatchSize}`];
    },
    async [Symbol.asyncDispose]() {
      // The JVM's log is in the fixture's scratch directory, which close() deletes: keep a copy.
      await copyFile(kms.logFile, ctx.results.logPath(`hadoop-kms-${id}`)).catch(() => undefined);
      await kms.close();
    },
  };
}
