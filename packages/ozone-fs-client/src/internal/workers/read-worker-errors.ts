// Errors cross from a read worker thread to the caller's thread as plain data and come back as
// the same classes, codes and fields the in-thread read path throws: structured cloning keeps
// only an Error's message and stack, not its class or its own fields (code, retriable, address,
// location, attempts…). An error of another package's class (the OM's transport, when a worker's
// renewed block token needed a lookup) comes back a FastpathError with its name, code and fields.
import { inspect } from 'node:util';
import { FastpathError } from '@fastpath/core';
import {
  ChecksumMismatchError,
  DatanodeResultError,
  MiniClusterError,
  OmFailoverExhaustedError,
  OmStatusError,
  OzoneClosedError,
  OzoneInvalidArgumentError,
  OzoneProtocolError,
  OzoneRpcError,
  OzoneTlsConfigError,
  ReadWorkerError,
  ReplicasExhaustedError,
  ShortCircuitError,
  ShortReadError,
} from '../../ozone-errors.js';

/** An error as it travels between threads. */
export interface WireError {
  /** A tag of the known classes below, else the name of a standard error class, else 'Error'. */
  kind: string;
  message: string;
  /** The class's name, for a FastpathError of a class not tagged here. */
  name?: string;
  stack: string | undefined;
  /** The error's own fields (code, retriable, address, location, …): structured-cloneable data. */
  fields: Record<string, unknown>;
  cause?: WireError | { value: unknown };
  attempts?: WireError[];
}

// Tags, not constructor names: a bundler may rename a class in one thread and not in the other.
const CLASSES: ReadonlyMap<string, abstract new (...args: never[]) => Error> = new Map<
  string,
  abstract new (...args: never[]) => Error
>([
  ['rpc', OzoneRpcError],
  ['protocol', OzoneProtocolError],
  ['datanode-result', DatanodeResultError],
  ['checksum-mismatch', ChecksumMismatchError],
  ['short-read', ShortReadError],
  ['replicas-exhausted', ReplicasExhaustedError],
  ['invalid-argument', OzoneInvalidArgumentError],
  ['closed', OzoneClosedError],
  ['short-circuit', ShortCircuitError],
  ['om-status', OmStatusError],
  ['tls-config', OzoneTlsConfigError],
  ['read-worker', ReadWorkerError],
  ['mini-cluster', MiniClusterError],
  ['om-failover-exhausted', OmFailoverExhaustedError],
  ['fastpath', FastpathError],
]);
const STANDARD: Readonly<Record<string, ErrorConstructor>> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/** Whether structured cloning takes `value` (a foreign cause may hold functions or handles). */
function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/** `value` as it crosses: itself when it can be cloned, else its description. */
function crossing(value: unknown): unknown {
  return cloneable(value) ? value : inspect(value, { depth: 2, breakLength: Infinity });
}

/** `err` as plain data. */
export function encodeError(err: unknown): WireError {
  if (!(err instanceof Error)) return { kind: 'Error', message: String(err), stack: undefined, fields: {} };
  let kind = STANDARD[err.name] === err.constructor ? err.name : 'Error';
  for (const [tag, cls] of CLASSES) if (err.constructor === cls) kind = tag;
  const foreign = kind === 'Error' && err instanceof FastpathError;
  if (foreign) kind = 'fastpath';
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (key === 'cause' || key === 'attempts') continue;
    fields[key] = crossing(value);
  }
  const wire: WireError = {
    kind,
    message: err.message,
    ...(foreign ? { name: err.name } : {}),
    stack: err.stack,
    fields,
  };
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined)
    wire.cause = cause instanceof Error ? encodeError(cause) : { value: crossing(cause) };
  if (err instanceof ReplicasExhaustedError) wire.attempts = err.attempts.map(encodeError);
  return wire;
}

function isWireError(x: WireError | { value: unknown }): x is WireError {
  return 'kind' in x;
}

/**
 * The error `wire` describes, of its class (its prototype, with its fields set; its message was
 * composed where it was thrown, so the constructor is not run again).
 */
export function reviveError(wire: WireError): Error {
  const cls = CLASSES.get(wire.kind) ?? STANDARD[wire.kind] ?? Error;
  const err = Object.create(cls.prototype as object) as Error;
  const define = (key: string, value: unknown): void => {
    Object.defineProperty(err, key, { value, writable: true, configurable: true, enumerable: false });
  };
  define('message', wire.message);
  if (wire.name !== undefined) define('name', wire.name);
  define('stack', wire.stack ?? `${wire.kind}: ${wire.message}`);
  Object.assign(err, wire.fields);
  if (wire.cause !== undefined)
    define('cause', isWireError(wire.cause) ? reviveError(wire.cause) : wire.cause.value);
  if (wire.attempts) Object.assign(err, { attempts: wire.attempts.map(reviveError) });
  return err;
}
