// Run by the watchdog test as its own Node process (through tsx): starts a real cluster, prints
// the JVM's pid and the fixture's directory as one JSON line, and waits to be killed.
import { startRealOzoneCluster } from '@fastpath/ozone-fixture';

const cluster = await startRealOzoneCluster({ datanodes: 1 });
process.stdout.write(`${JSON.stringify({ pid: cluster.pid, rootDir: cluster.rootDir })}\n`);
setInterval(() => undefined, 1 << 30);
