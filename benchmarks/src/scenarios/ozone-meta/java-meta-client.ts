// Ozone's own Java client beside fastpath's: java/fastpath/ozonemeta/OzoneMetaBench.java in a JVM
// of its own (the harness's Java client process), compiled against the jars tools/ozone resolves.
// It answers the same calls as meta-client-main.ts.
import { prepareOzoneJars } from '@fastpath/ozone-fixture';
import { startJavaClientProcess, type JavaClientProcess, type ScenarioContext } from '../../harness/index.js';

/** Heap for the client: its round's key names and the window's latencies, with room to spare. */
export const JAVA_CLIENT_HEAP_MB = 512;

/**
 * Starts the client's JVM; on a secure cluster with `security`'s JVM flags (the realm, the TLS
 * hosts file) and class path entries first (the cluster's client `ozone-site.xml` for TLS).
 */
export async function startJavaMetaClient(
  ctx: ScenarioContext<unknown>,
  security: { jvmArgs: readonly string[]; classpathPrefix: readonly string[] } = {
    jvmArgs: [],
    classpathPrefix: [],
  },
): Promise<JavaClientProcess> {
  const jars = await prepareOzoneJars({ onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`) });
  return startJavaClientProcess(ctx, {
    name: 'java-meta-client',
    sourceDir: 'scenarios/ozone-meta/java',
    mainClass: 'fastpath.ozonemeta.OzoneMetaBench',
    javaPath: jars.javaPath,
    classpath: [...security.classpathPrefix, jars.classpath].join(':'),
    jvmArgs: [
      `-Xmx${JAVA_CLIENT_HEAP_MB}m`,
      `-Dlog4j.configuration=file:${jars.log4jConfig}`,
      ...security.jvmArgs,
    ],
    description:
      "Ozone's own Java client (OzoneClientFactory's RpcClient, the OzoneBucket API) running the OM operations",
  });
}
