import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { OzoneRpcError } from '../../ozone-errors.js';

/** A grpc-js failure as a typed error that says whether a retry (or another replica) can help. */
export function rpcError(address: string, err: unknown): OzoneRpcError {
  const e = err as Partial<ServiceError>;
  const code = typeof e.code === 'number' ? e.code : GrpcStatus.UNKNOWN;
  const details = tidyDetails(e.details ?? (err instanceof Error ? err.message : String(err)));
  if (code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.CANCELLED) {
    return new OzoneRpcError('ERR_OZONE_UNAVAILABLE', address, code, `unavailable: ${details}`, err);
  }
  if (code === GrpcStatus.DEADLINE_EXCEEDED) {
    return new OzoneRpcError(
      'ERR_OZONE_DEADLINE_EXCEEDED',
      address,
      code,
      `no answer before the deadline: ${details}`,
      err,
    );
  }
  return new OzoneRpcError(
    'ERR_OZONE_RPC_FAILED',
    address,
    code,
    `gRPC ${GrpcStatus[code] ?? code}: ${details}`,
    err,
  );
}

/**
 * grpc-js ends a failed pick's text with its empty fields ("No connection established. Last
 * error: null. Resolution note: "); the message keeps what says something.
 */
function tidyDetails(details: string): string {
  return details
    .replace(/\s*Resolution note:\s*$/, '')
    .replace(/\s*Last error: null\.?/, '')
    .trim();
}
