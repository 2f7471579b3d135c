// Whether the short-circuit rows can run, and with which client settings. On the embedded cluster
// they run when its datanodes serve their domain socket (which needs the package's native addon,
// for the descriptor passing Node's `net` cannot do); on the real cluster never: Ozone's
// datanodes serve short-circuit reads only with Hadoop's native libhadoop, which the Maven
// Central jars do not carry. A row that cannot run is reported as not run, with the reason,
// never measured on another path.
import type { ReadRow } from './ozone-read-cases.js';

export interface ShortCircuitAvailability {
  available: boolean;
  /** Why the short-circuit rows are not run, when they are not. */
  reason?: string;
  /** `ozone.domain.socket.path` of the cluster, when it serves one. */
  domainSocketPath?: string;
}

export const REAL_CLUSTER_NO_SHORT_CIRCUIT =
  "Apache Ozone's datanodes serve short-circuit reads only with Hadoop's native libhadoop (DomainSocket), which the Maven Central jars do not carry";

/** Client properties of a read path: short-circuit on, with the cluster's socket, or nothing for gRPC. */
export function readPathProperties(
  sc: ShortCircuitAvailability,
  path: ReadRow['path'],
): Record<string, string> {
  if (path !== 'short-circuit' || !sc.domainSocketPath) return {};
  return { 'ozone.client.read.short-circuit': 'true', 'ozone.domain.socket.path': sc.domainSocketPath };
}
