// Whether the short-circuit rows can run, and with which client settings. fastpath's client has no
// short-circuit read path in this build (the client side needs the block file's descriptor passed
// over a Unix domain socket, which Node's `net` cannot receive without a native addon, and the
// embedded datanode does not serve that socket), so the rows are reported as not run, with this
// reason, rather than measured on another path.
import type { ReadRow } from './ozone-read-cases.js';
import type { ClusterKind } from './ozone-read-settings.js';

export interface ShortCircuitAvailability {
  available: boolean;
  /** Why the short-circuit rows are not run, when they are not. */
  reason?: string;
  /** Client properties of each read path. */
  properties: (path: ReadRow['path']) => Record<string, string>;
}

export function shortCircuitAvailability(cluster: ClusterKind): ShortCircuitAvailability {
  const properties = (): Record<string, string> => ({});
  if (cluster === 'real')
    return {
      available: false,
      reason:
        "Apache Ozone's datanodes serve short-circuit reads only with Hadoop's native libhadoop (DomainSocket), which the Maven Central jars do not carry",
      properties,
    };
  return {
    available: false,
    reason:
      "fastpath's client has no short-circuit read path in this build: receiving the block file's descriptor over a Unix domain socket needs a native addon, and the embedded datanode serves no domain socket",
    properties,
  };
}
