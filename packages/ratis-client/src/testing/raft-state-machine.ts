/**
 * The state machine of an embedded Raft group: what a write does when its entry is committed,
 * and what a read-only query answers. A method that throws answers the request with Ratis's
 * `StateMachineException` (class and message of the thrown error).
 */
export interface RaftStateMachine {
  /** Applies the write committed at log `index` (called once per entry, in log order); returns the reply content. */
  apply(content: Buffer, index: number): Buffer | Promise<Buffer>;
  /** Answers a read-only query against what is applied so far. */
  query(content: Buffer): Buffer | Promise<Buffer>;
}
