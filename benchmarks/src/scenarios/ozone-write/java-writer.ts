// Ozone's own Java client beside fastpath's: java/fastpath/ozonewrite/OzoneWriteBench.java in a
// JVM of its own (the harness's Java client process), compiled against the jars tools/ozone
// resolves.
import { prepareOzoneJars } from '@fastpath/ozone-fixture';
import { startJavaClientProcess, type ScenarioContext } from '../../harness/index.js';
import type { WriterCall } from './fastpath-writer-main.js';
import type { OzoneWriteSettings } from './ozone-write-settings.js';

/** The calls both writers answer alike (the Java one answers no `open`, `delete` or `close`). */
type SharedCall = Extract<WriterCall, { op: 'prepare' | 'write' | 'verify' }>;

export interface JavaWriter extends AsyncDisposable {
  /** Ozone's version, as its jars say. */
  readonly version: string;
  readonly heapMb: number;
  call(request: SharedCall, timeoutMs: number): Promise<unknown>;
}

/** Heap beyond the keys' content: 16 writers each hold up to `ozone.client.stream.buffer.max.size` (32 MiB). */
const HEADROOM_MB = 1024;

export async function startJavaWriter(
  ctx: ScenarioContext<OzoneWriteSettings>,
  target: { omRpcAddress: string; volume: string; bucket: string },
  contentBytes: number,
): Promise<JavaWriter> {
  const jars = await prepareOzoneJars({ onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`) });
  const heapMb = HEADROOM_MB + Math.ceil(contentBytes / (1024 * 1024));
  const jvm = await startJavaClientProcess(ctx, {
    name: 'java-writer',
    sourceDir: 'scenarios/ozone-write/java',
    mainClass: 'fastpath.ozonewrite.OzoneWriteBench',
    javaPath: jars.javaPath,
    classpath: jars.classpath,
    jvmArgs: [`-Xmx${heapMb}m`, `-Dlog4j.configuration=file:${jars.log4jConfig}`],
    description: "Ozone's own Java client (OzoneClientFactory's RpcClient) writing and reading back its keys",
  });
  try {
    const init = (await jvm.call({ op: 'init', ...target }, 120_000)) as { version: string; layout: string };
    ctx.log(`Java writer: Ozone ${init.version}, bucket layout ${init.layout}, -Xmx${heapMb}m`);
    return {
      version: init.version,
      heapMb,
      call: (request, timeoutMs) => jvm.call(request, timeoutMs),
      [Symbol.asyncDispose]: () => jvm[Symbol.asyncDispose](),
    };
  } catch (err) {
    await jvm[Symbol.asyncDispose]();
    throw err;
  }
}
