import { describe, expect, it } from '@jest/globals';
import {
  RaftNotReplicatedError,
  RaftServerError,
  RaftStateMachineError,
  RaftTimeoutError,
} from '@fastpath/ratis-client';
import { DatanodeResultError, OzoneInvalidArgumentError } from '../../ozone-errors.js';
import { writeFailureKind } from './write-failure.js';

const remote = {
  remoteClass: 'org.apache.ratis.protocol.exceptions.StateMachineException',
  remoteMessage: 'closed',
  peerId: 'dn1',
};

describe('writeFailureKind', () => {
  it('moves to another container on a closed, closing or unhealthy container, or a refused block token', () => {
    for (const result of [
      'CONTAINER_NOT_OPEN',
      'CLOSED_CONTAINER_IO',
      'CONTAINER_UNHEALTHY',
      'CONTAINER_MISSING',
      'BLOCK_TOKEN_VERIFICATION_FAILED',
    ])
      expect(writeFailureKind(new DatanodeResultError('dn1', 'WriteChunk', result, ''))).toBe('container');
    expect(writeFailureKind(new RaftStateMachineError(remote))).toBe('container');
  });

  it('moves to another pipeline when the Raft group fails', () => {
    expect(writeFailureKind(new RaftTimeoutError('write', 1000, undefined))).toBe('pipeline');
    expect(writeFailureKind(new RaftServerError(remote, false))).toBe('pipeline');
    expect(writeFailureKind(new RaftNotReplicatedError('dn1', 'MAJORITY_COMMITTED', 5, []))).toBe('pipeline');
  });

  it('fails the key on anything a new block would not help', () => {
    expect(
      writeFailureKind(new DatanodeResultError('dn1', 'WriteChunk', 'IO_EXCEPTION', '')),
    ).toBeUndefined();
    expect(writeFailureKind(new OzoneInvalidArgumentError('bad'))).toBeUndefined();
    expect(writeFailureKind(new Error('x'))).toBeUndefined();
  });
});
