// The OM HA proxy: the list of OM nodes, the one believed to lead, and the failover policy of
// Ozone's OMFailoverProxyProviderBase, with one improvement: an OMNotLeaderException that names
// a configured node sends the call there at once (Ozone's client drops the hint and rotates).
import { OmFailoverExhaustedError } from '../../ozone-errors.js';
import { classifyOmFailure, type OmFailure } from './om-failure.js';
import type { OmNodeTransport } from './om-node-transport.js';
import type { OmMetrics } from './om-metrics.js';

/** One OM node of the proxy list. */
export interface OmNode {
  /** Ozone's node id (`ozone.om.nodes.<serviceId>`), `om1` for a single OM. */
  readonly nodeId: string;
  /** `host:port` the transport reaches (the gRPC port for gRPC). */
  readonly address: string;
  readonly transport: OmNodeTransport;
}

/** The node calls go to first: the one that last answered, or that an OM named as the leader. */
export interface OmLeader {
  /** The leader's node id (`ozone.om.nodes.<serviceId>`; `om1` for a single OM). */
  nodeId: string;
  /** The `host:port` calls to the leader go to, on the transport in use. */
  address: string;
}

export interface OmFailoverOptions {
  /** The client's 16-byte id, the same on every node (the OM's retry cache keys on it). */
  clientId: Uint8Array;
  /** The service id (`ozone.om.service.ids`), undefined for a single OM address. */
  serviceId: string | undefined;
  nodes: readonly OmNode[];
  /** `ozone.client.failover.max.attempts`: failovers one call may make before it fails. */
  maxFailovers: number;
  /** `ozone.client.wait.between.retries.millis`: the wait after each round of the nodes. */
  waitBetweenRetriesMs: number;
  metrics: OmMetrics;
}

/** What one logical call came back with. */
export interface OmCallResult {
  response: Uint8Array;
  node: OmNode;
  /**
   * An earlier attempt of this call may have been applied (it timed out or its connection
   * dropped) before the attempt that answered: a write's answer may then describe its own
   * earlier effect ("already exists").
   */
  resentAfterUnknownOutcome: boolean;
}

// Process-wide, as Hadoop's Client.nextCallId: never negative, wrapping at 2^31.
let nextCallId = 0;
function allocateCallId(): number {
  const id = nextCallId;
  nextCallId = (nextCallId + 1) & 0x7fffffff;
  return id;
}

export class OmFailoverProxy {
  readonly clientId: Uint8Array;
  readonly #options: OmFailoverOptions;
  #current = 0;
  #leaderKnown = false;
  #lastLeader: number | undefined;
  #closed = false;
  /** Waits between attempts, each with its timer: `close()` ends them. */
  readonly #pendingWaits = new Map<() => void, NodeJS.Timeout>();

  constructor(options: OmFailoverOptions) {
    if (options.nodes.length === 0) throw new Error('an OM proxy needs at least one node');
    if (options.clientId.length !== 16) throw new Error('an OM client id has 16 bytes');
    this.#options = options;
    this.clientId = options.clientId;
    options.metrics.watchLeader(() => this.leader);
  }

  get serviceId(): string | undefined {
    return this.#options.serviceId;
  }

  get nodes(): readonly OmNode[] {
    return this.#options.nodes;
  }

  /** The node calls go to first; undefined until a node answered or was named leader. */
  get leader(): OmLeader | undefined {
    if (!this.#leaderKnown) return undefined;
    const n = this.#options.nodes[this.#current] as OmNode;
    return { nodeId: n.nodeId, address: n.address };
  }

  /** The address calls go to first (for error messages). */
  get currentAddress(): string {
    return (this.#options.nodes[this.#current] as OmNode).address;
  }

  /**
   * Sends one logical call: one call id for every attempt, the retry count growing, until a node
   * answers, an answer is final, or the failovers run out.
   */
  async call(request: Uint8Array): Promise<OmCallResult> {
    const { nodes, maxFailovers, waitBetweenRetriesMs, metrics } = this.#options;
    const callId = allocateCallId();
    let index = this.#current;
    let retryCount = 0;
    let failovers = 0;
    let unknownOutcome = false;
    // Ozone's getWaitTime: the nodes tried in this round, and the asks in a row of one node. Made
    // at the first failure: most calls have none.
    let triedThisRound: Set<number> | undefined;
    // Nodes unreachable in this round: a follower that still names a killed leader (its election
    // not over) does not send the call back there before the round ends.
    let unreachableThisRound: Set<number> | undefined;
    let sameNodeAttempts = 0;
    for (;;) {
      const node = nodes[index] as OmNode;
      let failure: OmFailure;
      let error: unknown;
      try {
        const response = await node.transport.send(request, {
          clientId: this.clientId,
          callId,
          retryCount,
        });
        metrics.attempt(node.nodeId, 'ok');
        this.#answeredBy(index);
        return { response, node, resentAfterUnknownOutcome: unknownOutcome };
      } catch (err) {
        error = err;
        failure = classifyOmFailure(err);
        metrics.attempt(node.nodeId, failure.kind);
      }
      if (failure.kind === 'final' || this.#closed) throw error;
      if ((failure.kind === 'unreachable' || failure.kind === 'not-leader') && failure.outcomeUnknown)
        unknownOutcome = true;
      if (failovers >= maxFailovers) {
        // A single OM address has no failover (0): the caller sees the transport's own error.
        if (nodes.length === 1 && this.#options.serviceId === undefined) throw error;
        throw new OmFailoverExhaustedError(this.#options.serviceId ?? node.address, failovers, error);
      }
      failovers++;
      retryCount++;
      triedThisRound ??= new Set<number>();
      unreachableThisRound ??= new Set<number>();
      if (failure.kind === 'unreachable') unreachableThisRound.add(index);
      const { next, suggested } = this.#nextNode(index, failure, unreachableThisRound);
      metrics.failover(failure.kind, suggested);
      // §5.5 of Ozone's policy: the same node again waits longer each time; a new node waits
      // only once every node has been tried in this round.
      let waitMs = 0;
      if (next === index) {
        sameNodeAttempts++;
        triedThisRound.clear();
        waitMs = waitBetweenRetriesMs * sameNodeAttempts;
      } else {
        sameNodeAttempts = 0;
        triedThisRound.add(index);
        if (triedThisRound.has(next)) {
          triedThisRound.clear();
          unreachableThisRound.clear();
          waitMs = waitBetweenRetriesMs;
        }
      }
      if (waitMs > 0) {
        metrics.waited(waitMs);
        await this.#wait(waitMs);
        if (this.#closed) throw error;
      }
      index = next;
    }
  }

  /** Where the next attempt goes, and whether that is the leader an OM named. */
  #nextNode(
    index: number,
    failure: OmFailure,
    unreachable: ReadonlySet<number>,
  ): { next: number; suggested: boolean } {
    const nodes = this.#options.nodes;
    if (failure.kind === 'leader-not-ready') return { next: index, suggested: false };
    if (failure.kind === 'not-leader' && failure.suggestedLeader) {
      const named = nodes.findIndex((n) => n.nodeId === failure.suggestedLeader?.nodeId);
      if (named >= 0 && named !== index && !unreachable.has(named)) {
        this.#moveTo(named, true);
        return { next: named, suggested: true };
      }
    }
    const next = (index + 1) % nodes.length;
    // Other calls start from the next node too, unless one of them already found the leader.
    if (this.#current === index) this.#moveTo(next, false);
    return { next, suggested: false };
  }

  #answeredBy(index: number): void {
    this.#moveTo(index, true);
  }

  #moveTo(index: number, known: boolean): void {
    this.#current = index;
    this.#leaderKnown = known;
    // A change is a node known to lead (it answered, or an OM named it) other than the last one:
    // rotating past nodes that refuse is not.
    if (known && index !== this.#lastLeader) {
      if (this.#lastLeader !== undefined) this.#options.metrics.leaderChanged();
      this.#lastLeader = index;
    }
  }

  #wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(this.#pendingWaits.get(done));
        this.#pendingWaits.delete(done);
        resolve();
      };
      this.#pendingWaits.set(done, setTimeout(done, ms));
    });
  }

  /** Closes every node's transport; calls waiting between attempts end with their last error. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const n of this.#options.nodes) n.transport.close();
    for (const done of [...this.#pendingWaits.keys()]) done();
  }
}
