/**
 * The state machine of an embedded Raft group: what a write does when its entry is committed,
 * and what a read-only query answers. A method that throws answers the request with Ratis's
 * `StateMachineException` (class and message of the thrown error).
 *
 * With `dataStream: true`, the two optional hooks serve Ratis's DataStream protocol as
 * `StateMachine.DataApi` does: {@link RaftStateMachine.stream} gives each member a sink for a
 * stream's data, {@link RaftStateMachine.link} commits a closed stream.
 */
export interface RaftStateMachine {
  /** Applies the write committed at log `index` (called once per entry, in log order); returns the reply content. */
  apply(content: Buffer, index: number): Buffer | Promise<Buffer>;
  /** Answers a read-only query against what is applied so far. */
  query(content: Buffer): Buffer | Promise<Buffer>;
  /**
   * Opens a stream's sink on one member, when its DataStream server receives the stream's header
   * (`content`: the header request's message content). Each member of the route calls it. A
   * throw, or a rejected promise, fails the stream: its data packets are answered with Ratis's
   * `DataStreamException` whose message names `StateMachineException` and the thrown error.
   * Without this hook a member refuses streams the same way.
   */
  stream?(content: Buffer, context: RaftStreamContext): RaftStreamSink | Promise<RaftStreamSink>;
  /**
   * Commits a stream, once per running member, when the log entry of its `forward` request is
   * applied at `index` (in place of {@link RaftStateMachine.apply} for that entry); `content` is
   * the stream header's message content. The leader's answer is the forward's reply content. A
   * throw answers the forward with `StateMachineException`. Without this hook the entry commits
   * with an empty answer.
   */
  link?(content: Buffer, index: number, context: RaftStreamContext): Buffer | Promise<Buffer>;
}

/** Which member a stream hook runs on. */
export interface RaftStreamContext {
  /** The member's peer id. */
  peerId: string;
}

/**
 * Where one member writes a stream's data (Ratis's `DataStream` and its `DataChannel`). Calls come
 * in the stream's order, one at a time. A method that throws fails the stream on that member.
 */
export interface RaftStreamSink {
  /**
   * Writes one data packet (`data` may be kept: it is not reused); `sync` when the packet carries
   * the SYNC option (force the data to disk before answering).
   */
  write(data: Buffer, options: { sync: boolean }): void | Promise<void>;
  /** The stream's last packet was written (it carried the CLOSE option). */
  close(): void | Promise<void>;
  /**
   * Throws the stream's data away: it failed, its connection closed before it was closed, or it
   * was closed and never linked by the time the group stopped.
   */
  cleanUp?(): void;
}
