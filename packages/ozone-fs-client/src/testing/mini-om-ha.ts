// The embedded cluster's OM HA: several OM nodes in front of one namespace (one MiniOm, one
// store), one of them the leader. The others answer every call, reads included (Ozone 2.2.0
// serves no follower reads unless asked), with the OMNotLeaderException a gRPC OM sends: gRPC
// INTERNAL, described "<class>: <message>" as Ozone's OzoneManagerServiceGrpc describes it, the
// message naming the leader as OMNotLeaderException words it.
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { MiniClusterError } from '../ozone-errors.js';
import type { MiniOm } from './mini-om.js';

const NOT_LEADER = 'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException';
const NOT_READY = 'org.apache.hadoop.ozone.om.exceptions.OMLeaderNotReadyException';
/** How a gRPC status INTERNAL is numbered. */
const INTERNAL = 13;

/** The leader's address as OMNotLeaderException prints it (`InetAddress.toString()`, no port). */
const LEADER_ADDRESS = 'localhost/127.0.0.1';

/**
 * The embedded cluster's OM HA mode: several OM nodes in front of one namespace (one {@link MiniOm}),
 * one of them the leader, the others answering as Ozone's followers do (OMNotLeaderException naming
 * the leader), with the leader moved, made not ready, or nodes stopped on demand.
 */
export class MiniOmHa {
  #leader: string | undefined;
  #leaderReady = true;
  readonly #running: Set<string>;
  /** Calls each node refused (not leader, not ready), by node id. */
  readonly refusals = new Map<string, number>();

  constructor(
    /** The OM service id (`ozone.om.service.ids`). */
    readonly serviceId: string,
    /** The node ids, in the order the nodes were started. */
    readonly nodeIds: readonly string[],
    /** The one OM every node serves when it leads. */
    readonly om: MiniOm,
  ) {
    this.#running = new Set(nodeIds);
    this.#leader = nodeIds[0];
  }

  /** The leading node's id; undefined while no node leads. */
  get leader(): string | undefined {
    return this.#leader;
  }

  /** The gRPC handler of one node: the shared OM's when the node leads and is ready. */
  handler(nodeId: string): (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void {
    return (call, callback) => {
      const refusal = this.#refusal(nodeId);
      if (refusal === undefined) {
        this.om.handle(call, callback);
        return;
      }
      this.refusals.set(nodeId, (this.refusals.get(nodeId) ?? 0) + 1);
      callback({ code: INTERNAL, details: refusal });
    };
  }

  #refusal(nodeId: string): string | undefined {
    if (this.#leader !== nodeId)
      return `${NOT_LEADER}: OM:${nodeId} is not the leader. ${
        this.#leader === undefined
          ? 'Could not determine the leader node.'
          : `Suggested leader is OM:${this.#leader}[${LEADER_ADDRESS}].`
      }`;
    if (!this.#leaderReady) return `${NOT_READY}: ${nodeId} is Leader but not ready to process request yet.`;
    return undefined;
  }

  #check(nodeId: string): void {
    if (!this.nodeIds.includes(nodeId))
      throw new MiniClusterError(
        `no OM node ${nodeId} in service ${this.serviceId} (${this.nodeIds.join(', ')})`,
      );
  }

  /** Makes `nodeId` the leader (it must be running). */
  transferLeader(nodeId: string): void {
    this.#check(nodeId);
    if (!this.#running.has(nodeId)) throw new MiniClusterError(`OM node ${nodeId} is stopped`);
    this.#leader = nodeId;
  }

  /** Whether the leader serves calls, or answers OMLeaderNotReadyException (a leader catching up). */
  setLeaderReady(ready: boolean): void {
    this.#leaderReady = ready;
  }

  /** A node went down: when it led, the next running node leads (an election), if any runs. */
  stopped(nodeId: string): void {
    this.#check(nodeId);
    this.#running.delete(nodeId);
    if (this.#leader !== nodeId) return;
    const i = this.nodeIds.indexOf(nodeId);
    const order = [...this.nodeIds.slice(i + 1), ...this.nodeIds.slice(0, i)];
    this.#leader = order.find((n) => this.#running.has(n));
  }

  /** A node came back: a follower, unless no node leads. */
  started(nodeId: string): void {
    this.#check(nodeId);
    this.#running.add(nodeId);
    this.#leader ??= nodeId;
  }

  /** Whether the node is up (not stopped with the cluster's `stopOm`). */
  isRunning(nodeId: string): boolean {
    return this.#running.has(nodeId);
  }
}
