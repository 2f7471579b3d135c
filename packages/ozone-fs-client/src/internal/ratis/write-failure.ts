// Which write failures Java's KeyOutputStream survives by moving the block's unacknowledged data
// to a new block, and what it then excludes from the allocation.
import {
  RaftDataStreamError,
  RaftNotReplicatedError,
  RaftServerError,
  RaftStateMachineError,
  RaftTimeoutError,
} from '@fastpath/ratis-client';
import { DatanodeResultError } from '../../ozone-errors.js';

/**
 * Results of a container that takes no more writes (closed, closing or unhealthy), and a refused
 * block token: Java's KeyOutputStream moves to a new block on every container error, and the new
 * block's token is the fresh one AllocateBlock hands out (a block being written never gets another).
 */
const CONTAINER_RESULTS: ReadonlySet<string> = new Set([
  'CONTAINER_NOT_OPEN',
  'CLOSED_CONTAINER_IO',
  'CONTAINER_UNHEALTHY',
  'CONTAINER_MISSING',
  'BLOCK_TOKEN_VERIFICATION_FAILED',
]);

/**
 * `'container'` when the block's container refused the write (a datanode result such as
 * CLOSED_CONTAINER_IO, or the state machine's refusal), `'pipeline'` when its Raft group failed
 * (no answer through every re-send, a watch that reached no level, a group the members no longer
 * have, a DataStream connection or packet that failed), `undefined` for a failure a new block would not help (bad input, a closed client).
 */
export function writeFailureKind(error: unknown): 'container' | 'pipeline' | undefined {
  if (error instanceof DatanodeResultError)
    return CONTAINER_RESULTS.has(error.result) ? 'container' : undefined;
  if (error instanceof RaftStateMachineError) return 'container';
  if (
    error instanceof RaftTimeoutError ||
    error instanceof RaftDataStreamError ||
    error instanceof RaftNotReplicatedError ||
    error instanceof RaftServerError
  )
    return 'pipeline';
  return undefined;
}
