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
 * How an OM status surfaces as an {@link OmStatusError}: one entry of {@link OM_STATUS_ERRORS}.
 *
 * @typeParam Code - the error code, as a literal type
 * @typeParam Retriable - whether the error is retriable, as a literal type
 */
export interface OmStatusErrorEntry<
  Code extends `ERR_OZONE_${string}` = `ERR_OZONE_${string}`,
  Retriable extends boolean = boolean,
> {
  /** The `code` the {@link OmStatusError} carries for this status (`ERR_OZONE_...`, stable across releases). */
  readonly code: Code;
  /** The error's `retriable`: whether the same call can succeed later without the caller changing anything. */
  readonly retriable: Retriable;
}

// Every entry is built here so that its type is the documented OmStatusErrorEntry, literal code kept.
function omStatus<Code extends `ERR_OZONE_${string}`, Retriable extends boolean>(
  code: Code,
  retriable: Retriable,
): OmStatusErrorEntry<Code, Retriable> {
  return { code, retriable };
}

/**
 * The codes of `OMResponse.status` values the client can meet, one code per status. A status not
 * listed here surfaces as `ERR_OZONE_OM_ERROR` with the status name in `error.status`.
 */
export const OM_STATUS_ERRORS = Object.freeze({
  /** The volume named in the call does not exist. */
  VOLUME_NOT_FOUND: omStatus('ERR_OZONE_VOLUME_NOT_FOUND', false),
  /** A volume delete while the volume still holds buckets. */
  VOLUME_NOT_EMPTY: omStatus('ERR_OZONE_VOLUME_NOT_EMPTY', false),
  /** A volume create for a name that is taken. */
  VOLUME_ALREADY_EXISTS: omStatus('ERR_OZONE_VOLUME_ALREADY_EXISTS', false),
  /** The bucket named in the call does not exist in its volume. */
  BUCKET_NOT_FOUND: omStatus('ERR_OZONE_BUCKET_NOT_FOUND', false),
  /** A bucket delete while the bucket still holds keys. */
  BUCKET_NOT_EMPTY: omStatus('ERR_OZONE_BUCKET_NOT_EMPTY', false),
  /** A bucket create for a name that is taken in that volume. */
  BUCKET_ALREADY_EXISTS: omStatus('ERR_OZONE_BUCKET_ALREADY_EXISTS', false),
  /** A rename onto a key that exists (the target of `RenameKey`). */
  KEY_ALREADY_EXISTS: omStatus('ERR_OZONE_KEY_ALREADY_EXISTS', false),
  /** The key (or the rename source) does not exist; also an open key whose client id the OM does not know. */
  KEY_NOT_FOUND: omStatus('ERR_OZONE_KEY_NOT_FOUND', false),
  /** A key name the OM refuses (empty, or a path the bucket layout cannot hold). */
  INVALID_KEY_NAME: omStatus('ERR_OZONE_INVALID_KEY_NAME', false),
  /**
   * Getting or renewing a delegation token over a connection not authenticated by Kerberos (one
   * authenticated by a token cannot get another, as Ozone's OM rules).
   */
  INVALID_AUTH_METHOD: omStatus('ERR_OZONE_INVALID_AUTH_METHOD', false),
  /** A delegation token the OM does not know or refuses (forged, cancelled, for another OM). */
  INVALID_TOKEN: omStatus('ERR_OZONE_INVALID_TOKEN', false),
  /** A delegation token past its expiry or its maximum lifetime. */
  TOKEN_EXPIRED: omStatus('ERR_OZONE_TOKEN_EXPIRED', false),
  /** A delegation token call the OM refused otherwise: renewing as someone not the renewer, cancelling as neither owner nor renewer, a cancelled token. */
  TOKEN_ERROR_OTHER: omStatus('ERR_OZONE_TOKEN_ERROR', false),
  /** The OM's authorization check refused the caller. */
  ACCESS_DENIED: omStatus('ERR_OZONE_ACCESS_DENIED', false),
  /** The caller lacks a right the call needs (an ACL right when `ozone.acl.enabled` is on, or admin rights). */
  PERMISSION_DENIED: omStatus('ERR_OZONE_PERMISSION_DENIED', false),
  /** The OM failed the request on its side (also how an OM answers a call it was applying when it went down). */
  INTERNAL_ERROR: omStatus('ERR_OZONE_OM_INTERNAL_ERROR', false),
  /** The OM could not get a block from SCM for the key (too few healthy datanodes or pipelines); retriable. */
  KEY_ALLOCATION_ERROR: omStatus('ERR_OZONE_KEY_ALLOCATION_ERROR', true),
  /** The OM refused the rename (for instance a directory onto its own subdirectory). */
  KEY_RENAME_ERROR: omStatus('ERR_OZONE_KEY_RENAME_ERROR', false),
  /** SCM has not left safe mode, so no blocks can be allocated yet; retriable. */
  SCM_IN_SAFE_MODE: omStatus('ERR_OZONE_SCM_IN_SAFE_MODE', true),
  /** A request the OM will not apply: a missing body, a block the key was not given, a replication config it refuses. */
  INVALID_REQUEST: omStatus('ERR_OZONE_INVALID_REQUEST', false),
  /** A file-system call (`GetFileStatus`, `LookupFile`) on a path that does not exist. */
  FILE_NOT_FOUND: omStatus('ERR_OZONE_FILE_NOT_FOUND', false),
  /** A non-recursive file create whose parent directory does not exist. */
  DIRECTORY_NOT_FOUND: omStatus('ERR_OZONE_DIRECTORY_NOT_FOUND', false),
  /** A create or mkdir meets a file at the path or at one of its parents. */
  FILE_ALREADY_EXISTS: omStatus('ERR_OZONE_FILE_ALREADY_EXISTS', false),
  /** A file create or open on a path that is a directory. */
  NOT_A_FILE: omStatus('ERR_OZONE_NOT_A_FILE', false),
  /** The OM did not finish the request in its own time limit; retriable. */
  TIMEOUT: omStatus('ERR_OZONE_OM_TIMEOUT', true),
  /** A mkdir of a directory that exists (`OzoneClient.createDirectory` reports it as `existed`). */
  DIRECTORY_ALREADY_EXISTS: omStatus('ERR_OZONE_DIRECTORY_ALREADY_EXISTS', false),
  /** A command or option the OM does not serve (an unknown command, hsync when the OM has it turned off). */
  NOT_SUPPORTED_OPERATION: omStatus('ERR_OZONE_NOT_SUPPORTED_OPERATION', false),
  /** A non-recursive delete of a directory that has entries. */
  DIRECTORY_NOT_EMPTY: omStatus('ERR_OZONE_DIRECTORY_NOT_EMPTY', false),
  /** A bucket name the OM refuses (S3 naming rules: 3-63 characters, lower case, digits, `-` and `.`). */
  INVALID_BUCKET_NAME: omStatus('ERR_OZONE_INVALID_BUCKET_NAME', false),
  /** A volume name the OM refuses (same rules as bucket names). */
  INVALID_VOLUME_NAME: omStatus('ERR_OZONE_INVALID_VOLUME_NAME', false),
  /** The write would go over the volume's or bucket's space or namespace quota. */
  QUOTA_EXCEEDED: omStatus('ERR_OZONE_QUOTA_EXCEEDED', false),
} satisfies Record<string, OmStatusErrorEntry>);

/** An `OMResponse` whose `status` is not `OK`. `status` is the Ozone status name, `omMessage` the OM's text. */
export class OmStatusError extends OzoneError {
  /** The `OMResponse.status` name (`KEY_NOT_FOUND`), or `status <n>` for a number this client's protocol does not name. */
  readonly status: string;
  /** The OM's own explanation (`OMResponse.message`); empty when the OM sent none. */
  readonly omMessage: string;
  /** The OM command that failed, as its `OMRequest.cmdType` name (`CreateKey`, `InfoBucket`). */
  readonly operation: string;
  constructor(operation: string, status: string, omMessage: string) {
    const known = (OM_STATUS_ERRORS as Record<string, OmStatusErrorEntry>)[status];
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
  /** The `host:port` of the OM or datanode the call went to. */
  readonly address: string;
  /** The gRPC status code (`@grpc/grpc-js`'s `status`: 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED, ...); 2 UNKNOWN when the failure had none. */
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
  /** The `host:port` of the OM or datanode whose answer could not be used. */
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
  /** The `ContainerCommandResponseProto.result` name (`CONTAINER_NOT_FOUND`, `IO_EXCEPTION`); retriable for the results a retry can get past. */
  readonly result: string;
  /** The `host:port` of the datanode that answered. */
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
  /** The container holding the block (`BlockID.containerID`). */
  containerId: bigint;
  /** The block's id inside its container (`BlockID.localID`). */
  localId: bigint;
  /** The chunk's name as the datanode's block data lists it (`ChunkInfo.chunkName`). */
  chunkName: string;
  /** Offset of the checked range within the chunk, in bytes. */
  offsetInChunk: number;
}

/** Data read from a replica does not match its stored checksums (or the count of checksums does not fit the data). */
export class ChecksumMismatchError extends OzoneError {
  /** The block, chunk and offset in the chunk of the first checksum window that did not match. */
  readonly location: ChunkLocation;
  /** The `host:port` of the datanode whose replica was read. */
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
  /** The `host:port` of the datanode whose replica was read. */
  readonly address: string;
  /** Bytes the `ReadChunk` asked for. */
  readonly expectedBytes: number;
  /** Bytes the datanode's answer carried. */
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
  /** One error per replica tried, in the order tried; the last one is also the `cause`. The error is retriable when any of these is. */
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
  /** The key the stream writes, as its name in the bucket. */
  readonly key: string;
  constructor(key: string, reason: string) {
    super('ERR_OZONE_HSYNC_UNSUPPORTED', `hsync of ${key}: ${reason}`);
    this.key = key;
  }
}

/**
 * A key to be streamed (`ozone.fs.datastream.enabled`) got a block whose pipeline has a datanode
 * without a `RATIS_DATASTREAM` port: its datanodes run without
 * `hdds.container.ratis.datastream.enabled`. Java's streaming writer refuses such a pipeline the
 * same way. Code `ERR_OZONE_DATASTREAM_UNAVAILABLE`; nothing of the key was sent and it is not
 * committed.
 */
export class OzoneDataStreamUnavailableError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_DATASTREAM_UNAVAILABLE', message);
  }
}

/**
 * A short-circuit read could not be done: the domain socket is missing or refused the
 * connection, the datanode's answer was not a granted GetBlock with a descriptor, or the passed
 * descriptor could not be read. The read falls back to gRPC and short-circuit stays off for that
 * datanode for `ozone.client.read.short-circuit.disable.interval`.
 */
export class ShortCircuitError extends OzoneError {
  /** Where it failed: `domain socket <path>` for the socket exchange, or the datanode's `host:port` for reading the passed block file. */
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
  /** Units needed to rebuild the stripe: the schema's data count. */
  readonly neededUnits: number;
  /** Units that could be read (or were given to the decoder), fewer than `neededUnits`. */
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

/** One replica's failure in a stripe write of an erasure-coded key. */
export interface EcReplicaWriteFailure {
  /** The stripe write attempt it happened in: 1 for the first, up to `ozone.client.max.ec.stripe.write.retries` + 1. */
  readonly attempt: number;
  /** The replica index (1..data+parity) whose command failed. */
  readonly replicaIndex: number;
  /** The datanode that holds that replica (its UUID). */
  readonly datanodeUuid: string;
  /** The `host:port` of that datanode's standalone port. */
  readonly address: string;
  /** The command that failed. */
  readonly command: 'WriteChunk' | 'PutBlock';
  /** What it failed with (an `OzoneRpcError`, a `DatanodeResultError`, …). */
  readonly error: Error;
}

/**
 * A stripe of an erasure-coded key could not be written: it failed in every block group tried,
 * the first and `ozone.client.max.ec.stripe.write.retries` new ones (Ozone's "Completed max
 * allowed retries"). Nothing of the key is committed. Retriable: the datanodes may come back, or
 * others be chosen. `cause` is the last failure's error. Code `ERR_OZONE_EC_WRITE_FAILED`.
 */
export class ErasureCodedWriteError extends OzoneError {
  /** The key (its name in the bucket). */
  readonly key: string;
  /** Stripe write attempts made, each in a block group of its own. */
  readonly attempts: number;
  /** Every replica failure of every attempt, in order. */
  readonly failures: readonly EcReplicaWriteFailure[];
  /**
   * Why no further block group could be had for the stripe (the OM's AllocateBlock refusing once
   * the failed datanodes were excluded, e.g. `KEY_ALLOCATION_ERROR`); then it is also `cause`.
   * Undefined when the retries ran out first.
   */
  readonly allocationError: Error | undefined;
  constructor(
    key: string,
    attempts: number,
    failures: readonly EcReplicaWriteFailure[],
    allocationError?: Error,
  ) {
    const last = failures[failures.length - 1];
    const why = allocationError
      ? `, and no other block group could be allocated: ${allocationError.message}`
      : ` (max retries ${attempts - 1})`;
    const cause = allocationError ?? last?.error;
    super(
      'ERR_OZONE_EC_WRITE_FAILED',
      `EC write of ${key}: a stripe failed in ${attempts} block groups${why}${
        last
          ? `; last replica failure: replica ${last.replicaIndex} ${last.command}: ${last.error.message}`
          : ''
      }`,
      { retriable: true, ...(cause ? { cause } : {}) },
    );
    this.key = key;
    this.attempts = attempts;
    this.failures = failures;
    this.allocationError = allocationError;
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
