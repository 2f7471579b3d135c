import { FastpathError } from '@fastpath/core';
import { HadoopRpcCallTimeoutError } from '@fastpath/hadoop-rpc';
import {
  ChecksumMismatchError,
  DatanodeResultError,
  OmFailoverExhaustedError,
  OzoneRpcError,
  ReadWorkerError,
  ReplicasExhaustedError,
} from '../../ozone-errors.js';
import { encodeError, reviveError } from './read-worker-errors.js';

/** Through a real thread boundary's cloning, as the worker's messages travel. */
const across = (err: unknown): Error => reviveError(structuredClone(encodeError(err)));

describe('read worker errors', () => {
  it('come back as the same class with the same code, fields, message and nested attempts', () => {
    const location = { containerId: 7n, localId: 9n, chunkName: '9_chunk_1', offsetInChunk: 16384 };
    const original = new ReplicasExhaustedError('ReadChunk of block 7/9', [
      new ChecksumMismatchError('127.0.0.1:1', location, 'window 1'),
      new OzoneRpcError('ERR_OZONE_DEADLINE_EXCEEDED', '127.0.0.1:2', 4, 'no answer', {
        code: 4,
        details: 'no answer',
        callback: () => undefined,
      }),
      new DatanodeResultError('127.0.0.1:3', 'ReadChunk', 'IO_EXCEPTION', 'disk'),
    ]);
    const revived = across(original);
    expect(revived).toBeInstanceOf(ReplicasExhaustedError);
    expect(revived).toBeInstanceOf(FastpathError);
    const r = revived as ReplicasExhaustedError;
    expect({ name: r.name, code: r.code, retriable: r.retriable, message: r.message }).toEqual({
      name: 'ReplicasExhaustedError',
      code: 'ERR_OZONE_REPLICAS_EXHAUSTED',
      retriable: true,
      message: original.message,
    });
    const [bad, late, result] = r.attempts;
    expect(bad).toBeInstanceOf(ChecksumMismatchError);
    expect((bad as ChecksumMismatchError).location).toEqual(location);
    expect(late).toBeInstanceOf(OzoneRpcError);
    expect(late).toMatchObject({ code: 'ERR_OZONE_DEADLINE_EXCEEDED', grpcCode: 4, address: '127.0.0.1:2' });
    // A foreign cause that cannot be cloned (it holds a function) still arrives, as text.
    expect(typeof (late as Error).cause).toBe('string');
    expect(result).toMatchObject({
      code: 'ERR_OZONE_DATANODE_RESULT',
      result: 'IO_EXCEPTION',
      retriable: true,
    });
    expect(r.cause).toBeInstanceOf(DatanodeResultError);
  });

  it('keep standard errors standard and anything else an Error with its text', () => {
    const type = across(new TypeError('not a function'));
    expect(type).toBeInstanceOf(TypeError);
    expect(type.message).toBe('not a function');
    const odd = across('a string thrown');
    expect(odd).toBeInstanceOf(Error);
    expect(odd.message).toBe('a string thrown');
    const worker = across(new ReadWorkerError('gone', 1));
    expect(worker).toMatchObject({ code: 'ERR_OZONE_READ_WORKER', retriable: true, exitCode: 1 });
  });

  it('keep an OM lookup’s errors FastpathErrors, with name, code and fields, as a refused token’s read reports them', () => {
    const timeout = new HadoopRpcCallTimeoutError('127.0.0.1:9862', 'submitRequest', 7, 10_000);
    const lookup = across(new OmFailoverExhaustedError('omservice', 2, timeout));
    expect(lookup).toBeInstanceOf(OmFailoverExhaustedError);
    expect(lookup).toMatchObject({
      code: 'ERR_OZONE_OM_FAILOVER_EXHAUSTED',
      service: 'omservice',
      failovers: 2,
    });
    // Another package's class: not this codec's to know, still a FastpathError that says what it was.
    const cause = lookup.cause as HadoopRpcCallTimeoutError;
    expect(cause).toBeInstanceOf(FastpathError);
    const { name, message, code, retriable, address, method, timeoutMs, callId } = cause;
    expect({ name, message, code, retriable, address, method, timeoutMs, callId }).toEqual({
      name: 'HadoopRpcCallTimeoutError',
      message: timeout.message,
      code: 'ERR_HADOOP_RPC_CALL_TIMEOUT',
      retriable: true,
      address: '127.0.0.1:9862',
      method: 'submitRequest',
      timeoutMs: 10_000,
      callId: 7,
    });
  });
});
