import type { DatanodeAddress } from './pipeline.js';

/**
 * The order replicas are tried in: the pipeline's order, with the datanode that last answered
 * for this block moved first (XceiverClientGrpc caches the GetBlock answerer the same way).
 */
export function orderReplicas(
  datanodes: readonly DatanodeAddress[],
  preferredUuid: string | undefined,
): DatanodeAddress[] {
  if (!preferredUuid) return [...datanodes];
  const first = datanodes.filter((d) => d.uuid === preferredUuid);
  return [...first, ...datanodes.filter((d) => d.uuid !== preferredUuid)];
}
