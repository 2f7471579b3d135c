import { FastpathError } from '@fastpath/core';

/**
 * Base class of every error the Ozone client and its mini cluster throw on purpose. `code` is
 * stable; `retriable` says whether the same call can succeed later (a datanode coming back, an OM
 * leaving safe mode).
 *
 * @example
 * ```ts
 * try {
 *   await client.getVolume('vol1');
 * } catch (err) {
 *   if (err instanceof OzoneError && err.code === 'ERR_OZONE_VOLUME_NOT_FOUND') await client.createVolume('vol1');
 *   else throw err;
 * }
 * ```
 */
export class OzoneError extends FastpathError {
  // Protected: a throw site names its family's subclass, which fixes the code and `retriable`.
  protected constructor(
    code: string,
    message: string,
    options: { cause?: unknown; retriable?: boolean } = {},
  ) {
    super(code, message, options);
  }
}

/**
 * The codes of `OMResponse.status` values the client can meet, one code per status. A status not
 * listed here surfaces as `ERR_OZONE_OM_ERROR` with the status name in `error.status`.
 */
export const OM_STATUS_ERRORS = Object.freeze({
  VOLUME_NOT_FOUND: { code: 'ERR_OZONE_VOLUME_NOT_FOUND', retriable: false },
  VOLUME_NOT_EMPTY: { code: 'ERR_OZONE_VOLUME_NOT_EMPTY', retriable: false },
  VOLUME_ALREADY_EXISTS: { code: 'ERR_OZONE_VOLUME_ALREADY_EXISTS', retriable: false },
  BUCKET_NOT_FOUND: { code: 'ERR_OZONE_BUCKET_NOT_FOUND', retriable: false },
  BUCKET_NOT_EMPTY: { code: 'ERR_OZONE_BUCKET_NOT_EMPTY', retriable: false },
  BUCKET_ALREADY_EXISTS: { code: 'ERR_OZONE_BUCKET_ALREADY_EXISTS', retriable: false },
  KEY_ALREADY_EXISTS: { code: 'ERR_OZONE_KEY_ALREADY_EXISTS', retriable: false },
  KEY_NOT_FOUND: { code: 'ERR_OZONE_KEY_NOT_FOUND', retriable: false },
  INVALID_KEY_NAME: { code: 'ERR_OZONE_INVALID_KEY_NAME', retriable: false },
  ACCESS_DENIED: { code: 'ERR_OZONE_ACCESS_DENIED', retriable: false },
  PERMISSION_DENIED: { code: 'ERR_OZONE_PERMISSION_DENIED', retriable: false },
  INTERNAL_ERROR: { code: 'ERR_OZONE_OM_INTERNAL_ERROR', retriable: false },
  KEY_ALLOCATION_ERROR: { code: 'ERR_OZONE_KEY_ALLOCATION_ERROR', retriable: true },
  KEY_RENAME_ERROR: { code: 'ERR_OZONE_KEY_RENAME_ERROR', retriable: false },
  SCM_IN_SAFE_MODE: { code: 'ERR_OZONE_SCM_IN_SAFE_MODE', retriable: true },
  INVALID_REQUEST: { code: 'ERR_OZONE_INVALID_REQUEST', retriable: false },
  FILE_NOT_FOUND: { code: 'ERR_OZONE_FILE_NOT_FOUND', retriable: false },
  DIRECTORY_NOT_FOUND: { code: 'ERR_OZONE_DIRECTORY_NOT_FOUND', retriable: false },
  FILE_ALREADY_EXISTS: { code: 'ERR_OZONE_FILE_ALREADY_EXISTS', retriable: false },
  NOT_A_FILE: { code: 'ERR_OZONE_NOT_A_FILE', retriable: false },
  TIMEOUT: { code: 'ERR_OZONE_OM_TIMEOUT', retriable: true },
  DIRECTORY_ALREADY_EXISTS: { code: 'ERR_OZONE_DIRECTORY_ALREADY_EXISTS', retriable: false },
  NOT_SUPPORTED_OPERATION: { code: 'ERR_OZONE_NOT_SUPPORTED_OPERATION', retriable: false },
  DIRECTORY_NOT_EMPTY: { code: 'ERR_OZONE_DIRECTORY_NOT_EMPTY', retriable: false },
  INVALID_BUCKET_NAME: { code: 'ERR_OZONE_INVALID_BUCKET_NAME', retriable: false },
  INVALID_VOLUME_NAME: { code: 'ERR_OZONE_INVALID_VOLUME_NAME', retriable: false },
  QUOTA_EXCEEDED: { code: 'ERR_OZONE_QUOTA_EXCEEDED', retriable: false },
} as const satisfies Record<string, { code: `ERR_OZONE_${string}`; retriable: boolean }>);

/** An `OMResponse` whose `status` is not `OK`. `status` is the Ozone status name, `omMessage` the OM's text. */
export class OmStatusError extends OzoneError {
  readonly status: string;
  readonly omMessage: string;
  readonly operation: string;
  constructor(operation: string, status: string, omMessage: string) {
    const known = (OM_STATUS_ERRORS as Record<string, { code: string; retriable: boolean }>)[status];
    super(
      known?.code ?? 'ERR_OZONE_OM_ERROR',
      `${operation} failed: ${status}${omMessage ? `: ${omMessage}` : ''}`,
      {
        retriable: known?.retriable ?? false,
      },
    );
    this.status = status;
    this.omMessage = omMessage;
    this.operation = operation;
  }
}

/**
 * A gRPC call failed before an answer arrived: `ERR_OZONE_UNAVAILABLE` (connection refused or
 * lost, retriable), `ERR_OZONE_DEADLINE_EXCEEDED` (no answer within the deadline, retriable) or
 * `ERR_OZONE_RPC_FAILED` (the server answered with a gRPC error; not retriable).
 */
export class OzoneRpcError extends OzoneError {
  readonly address: string;
  readonly grpcCode: number;
  constructor(
    code: 'ERR_OZONE_UNAVAILABLE' | 'ERR_OZONE_DEADLINE_EXCEEDED' | 'ERR_OZONE_RPC_FAILED',
    address: string,
    grpcCode: number,
    details: string,
    cause?: unknown,
  ) {
    super(code, `${address}: ${details}`, { cause, retriable: code !== 'ERR_OZONE_RPC_FAILED' });
    this.address = address;
    this.grpcCode = grpcCode;
  }
}

/** A peer answered bytes that are not the expected protobuf message (truncated, garbage, a required field missing, the wrong body). */
export class OzoneProtocolError extends OzoneError {
  readonly address: string;
  constructor(address: string, message: string, cause?: unknown) {
    super('ERR_OZONE_PROTOCOL', `${address}: ${message}`, { cause });
    this.address = address;
  }
}

/** Datanode `Result` values a retry on the same or another replica can get past. */
const RETRIABLE_RESULTS = new Set([
  'CONTAINER_NOT_FOUND',
  'CONTAINER_UNHEALTHY',
  'CONTAINER_MISSING',
  'IO_EXCEPTION',
  'CLOSED_CONTAINER_RETRY',
  'CONTAINER_INTERNAL_ERROR',
  'DISK_OUT_OF_SPACE',
]);

/** A datanode answered a container command with a `Result` other than `SUCCESS` (or one this client does not know). */
export class DatanodeResultError extends OzoneError {
  readonly result: string;
  readonly address: string;
  constructor(address: string, command: string, result: string, datanodeMessage: string) {
    super(
      'ERR_OZONE_DATANODE_RESULT',
      `${address}: ${command} answered ${result}${datanodeMessage ? `: ${datanodeMessage}` : ''}`,
      {
        retriable: RETRIABLE_RESULTS.has(result),
      },
    );
    this.result = result;
    this.address = address;
  }
}

/** Where a read went wrong: the block, the chunk, and the offset inside the chunk. */
export interface ChunkLocation {
  containerId: bigint;
  localId: bigint;
  chunkName: string;
  /** Offset of the checked range within the chunk, in bytes. */
  offsetInChunk: number;
}

/** Data read from a replica does not match its stored checksums (or the count of checksums does not fit the data). */
export class ChecksumMismatchError extends OzoneError {
  readonly location: ChunkLocation;
  readonly address: string;
  constructor(address: string, location: ChunkLocation, detail: string) {
    super(
      'ERR_OZONE_CHECKSUM_MISMATCH',
      `${address}: checksum mismatch in block ${location.containerId}/${location.localId} chunk ${location.chunkName} at chunk offset ${location.offsetInChunk}: ${detail}`,
    );
    this.location = location;
    this.address = address;
  }
}

/** A replica returned fewer (or more) bytes than were asked for. */
export class ShortReadError extends OzoneError {
  readonly address: string;
  readonly expectedBytes: number;
  readonly actualBytes: number;
  constructor(address: string, location: ChunkLocation, expectedBytes: number, actualBytes: number) {
    super(
      'ERR_OZONE_SHORT_READ',
      `${address}: block ${location.containerId}/${location.localId} chunk ${location.chunkName}: asked for ${expectedBytes} bytes, got ${actualBytes}`,
    );
    this.address = address;
    this.expectedBytes = expectedBytes;
    this.actualBytes = actualBytes;
  }
}

/** Every replica of a block failed; `attempts` holds each replica's error in the order tried. */
export class ReplicasExhaustedError extends OzoneError {
  readonly attempts: readonly Error[];
  constructor(what: string, attempts: readonly Error[]) {
    const last = attempts[attempts.length - 1];
    super(
      'ERR_OZONE_REPLICAS_EXHAUSTED',
      `${what}: every replica failed (${attempts.length} tried)${last ? `; last: ${last.message}` : ''}`,
      {
        cause: last,
        retriable: attempts.some((a) => a instanceof FastpathError && a.retriable),
      },
    );
    this.attempts = attempts;
  }
}

/** A call argument the client cannot use (a negative position, a read past the end, an empty name). */
export class OzoneInvalidArgumentError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_INVALID_ARGUMENT', message);
  }
}

/** The client's TLS settings cannot be used (a CA file that cannot be read). Code `ERR_OZONE_TLS_CONFIG`. */
export class OzoneTlsConfigError extends OzoneError {
  constructor(message: string, cause?: unknown) {
    super('ERR_OZONE_TLS_CONFIG', message, cause === undefined ? {} : { cause });
  }
}

/**
 * The embedded mini cluster (`@fastpath/ozone-fs-client/testing`) cannot start or do what a test
 * asked: a bad datanode count, a socket path in the way, no openssl for its certificates. Code
 * `ERR_OZONE_MINI_CLUSTER`.
 */
export class MiniClusterError extends OzoneError {
  constructor(message: string, cause?: unknown) {
    super('ERR_OZONE_MINI_CLUSTER', message, cause === undefined ? {} : { cause });
  }
}

/** A call on a client, stream or cluster after `close()`. */
export class OzoneClosedError extends OzoneError {
  constructor(what: string) {
    super('ERR_OZONE_CLOSED', `${what} is closed`);
  }
}

/**
 * `hsync()` (or `hflush()`) with hsync on, on a key Ozone cannot hsync: a key with one replica
 * (Ozone 2.2.0's KeyOutputStream refuses RATIS/ONE). Code `ERR_OZONE_HSYNC_UNSUPPORTED`; nothing
 * was sent and the stream stays usable.
 */
export class OzoneHsyncUnsupportedError extends OzoneError {
  readonly key: string;
  constructor(key: string, reason: string) {
    super('ERR_OZONE_HSYNC_UNSUPPORTED', `hsync of ${key}: ${reason}`);
    this.key = key;
  }
}

/**
 * A short-circuit read could not be done: the domain socket is missing or refused the
 * connection, the datanode's answer was not a granted GetBlock with a descriptor, or the passed
 * descriptor could not be read. The read falls back to gRPC and short-circuit stays off for that
 * datanode for `ozone.client.read.short-circuit.disable.interval`.
 */
export class ShortCircuitError extends OzoneError {
  readonly address: string;
  constructor(address: string, message: string, cause?: unknown) {
    super('ERR_OZONE_SHORT_CIRCUIT', `${address}: short-circuit read failed: ${message}`, {
      ...(cause !== undefined ? { cause } : {}),
    });
    this.address = address;
  }
}

/**
 * A read worker thread (`ozone.client.read.worker.threads`) ended while a read was on it (it
 * crashed, ran out of memory or was terminated), and the read, sent once more to another worker,
 * lost that one too. Retriable: a fresh worker takes the next read. Code `ERR_OZONE_READ_WORKER`.
 */
export class ReadWorkerError extends OzoneError {
  /** The exit code of the last worker the read was on, when it exited with one. */
  readonly exitCode: number | undefined;
  constructor(message: string, exitCode: number | undefined, cause?: unknown) {
    super('ERR_OZONE_READ_WORKER', message, { retriable: true, ...(cause !== undefined ? { cause } : {}) });
    this.exitCode = exitCode;
  }
}

/**
 * An erasure-coding replication config the client cannot use: a codec other than `rs` or `xor`,
 * a data or parity count that is not a positive integer, `rs` with 256 or more units (GF(2^8)
 * has no more distinct rows), `xor` with more than one parity unit. Code `ERR_OZONE_EC_CONFIG`.
 */
export class ErasureCodingConfigError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_EC_CONFIG', message);
  }
}

/**
 * More units of an erasure-coded stripe are lost than its parity can rebuild: fewer than `data`
 * of its data and parity units could be read. Retriable when it comes from a read (a datanode
 * may come back); not from the raw decoder, whose inputs are what they are.
 * Code `ERR_OZONE_EC_UNRECOVERABLE`.
 */
export class ErasureUnrecoverableError extends OzoneError {
  /** Units needed (the data count) and units that were available. */
  readonly neededUnits: number;
  readonly availableUnits: number;
  constructor(
    what: string,
    neededUnits: number,
    availableUnits: number,
    options: { cause?: unknown; retriable?: boolean } = {},
  ) {
    super(
      'ERR_OZONE_EC_UNRECOVERABLE',
      `${what}: ${availableUnits} of the ${neededUnits} units needed to rebuild the stripe are available`,
      options,
    );
    this.neededUnits = neededUnits;
    this.availableUnits = availableUnits;
  }
}

/**
 * An OM call ran out of failovers (`ozone.client.failover.max.attempts`) without an OM node
 * answering it: every node was down, or none would lead. Retriable (a leader may be elected
 * later); `cause` is the last node's error. Code `ERR_OZONE_OM_FAILOVER_EXHAUSTED`.
 */
export class OmFailoverExhaustedError extends OzoneError {
  /** The OM service id, or the address of a single OM. */
  readonly service: string;
  /** Failovers the call made before giving up (`ozone.client.failover.max.attempts`). */
  readonly failovers: number;
  constructor(service: string, failovers: number, cause: unknown) {
    super(
      'ERR_OZONE_OM_FAILOVER_EXHAUSTED',
      `OM service ${service}: no OM node answered after ${failovers} failovers; last: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause, retriable: true },
    );
    this.service = service;
    this.failovers = failovers;
  }
}
