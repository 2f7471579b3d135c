import type { FastCounterSeries, MetricsRegistry } from '@fastpath/core';
import type { OmLeader } from './om-failover-proxy.js';

/** What one client's OM calls did, as plain numbers (`client.omStats`). */
export interface OmCallStats {
  /** Attempts sent to an OM node, every re-send and failover counted. */
  attempts: number;
  /** Attempts answered with an OMResponse (whatever its status). */
  answered: number;
  /** Times a call moved on or asked again after a failed attempt, by why. */
  failovers: {
    /** The node answered OMNotLeaderException: the call went to the leader it named, or the next node. */
    notLeader: number;
    /** The leader answered OMLeaderNotReadyException: the call asked it again after a wait. */
    leaderNotReady: number;
    /** The node refused or dropped the connection, or timed out: the call moved on. */
    unreachable: number;
  };
  /** Of the not-leader failovers, those that went straight to the leader the OM named. */
  suggestedLeaderHops: number;
  /** Times the node calls go to first changed. */
  leaderChanges: number;
  /** Time spent waiting between attempts, in ms. */
  waitedMs: number;
  /** Writes re-sent after an unknown outcome whose "already done" answer was taken as success. */
  resendsTolerated: number;
}

type LeaderSource = () => OmLeader | undefined;

// One leader gauge per registry, read from the live clients when scraped.
const leadersByRegistry = new WeakMap<
  MetricsRegistry,
  Map<string, { service: string; leader: LeaderSource }>
>();

/** The OM series of one client (labelled `client` = its client id), and the same as plain numbers. */
export class OmMetrics {
  readonly stats: OmCallStats = {
    attempts: 0,
    answered: 0,
    failovers: { notLeader: 0, leaderNotReady: 0, unreachable: 0 },
    suggestedLeaderHops: 0,
    leaderChanges: 0,
    waitedMs: 0,
    resendsTolerated: 0,
  };
  readonly #registry: MetricsRegistry;
  readonly #client: string;
  readonly #service: string;
  readonly #attempts;
  /** Each node's answered series: every OM call counts one, so it is looked up once. */
  readonly #answeredBy = new Map<string, FastCounterSeries>();
  readonly #failovers;
  readonly #waited;
  readonly #leaderChanges;
  readonly #tolerated;

  constructor(registry: MetricsRegistry, client: string, service: string) {
    this.#registry = registry;
    this.#client = client;
    this.#service = service;
    this.#attempts = registry.fastCounter(
      'ozone_client_om_attempts_total',
      'OM call attempts by node and outcome (ok, not-leader, leader-not-ready, unreachable, final)',
      ['client', 'node_id', 'outcome'],
    );
    this.#failovers = registry.counter(
      'ozone_client_om_failovers_total',
      'OM call attempts that were followed by another (failover or retry), by why',
      ['client', 'reason'],
    );
    this.#waited = registry.counter(
      'ozone_client_om_failover_wait_seconds_total',
      'Time OM calls waited between attempts',
      ['client'],
    );
    this.#leaderChanges = registry.counter(
      'ozone_client_om_leader_changes_total',
      'Times the OM node calls go to first changed',
      ['client'],
    );
    this.#tolerated = registry.counter(
      'ozone_client_om_resends_tolerated_total',
      'Writes re-sent after an unknown outcome whose "already done" answer was taken as success',
      ['client', 'command'],
    );
  }

  attempt(nodeId: string, outcome: string): void {
    this.stats.attempts++;
    if (outcome !== 'ok') {
      this.#attempts.series(this.#client, nodeId, outcome).inc();
      return;
    }
    this.stats.answered++;
    let answered = this.#answeredBy.get(nodeId);
    if (answered === undefined)
      this.#answeredBy.set(nodeId, (answered = this.#attempts.series(this.#client, nodeId, 'ok')));
    answered.inc();
  }

  failover(kind: 'not-leader' | 'leader-not-ready' | 'unreachable', suggestedHop: boolean): void {
    if (kind === 'not-leader') this.stats.failovers.notLeader++;
    else if (kind === 'leader-not-ready') this.stats.failovers.leaderNotReady++;
    else this.stats.failovers.unreachable++;
    if (suggestedHop) this.stats.suggestedLeaderHops++;
    this.#failovers.labels(this.#client, suggestedHop ? 'suggested-leader' : kind).inc();
  }

  waited(ms: number): void {
    this.stats.waitedMs += ms;
    this.#waited.labels(this.#client).inc(ms / 1000);
  }

  leaderChanged(): void {
    this.stats.leaderChanges++;
    this.#leaderChanges.labels(this.#client).inc();
  }

  resendTolerated(command: string): void {
    this.stats.resendsTolerated++;
    this.#tolerated.labels(this.#client, command).inc();
  }

  /** Exposes the client's current leader as `ozone_client_om_leader{…} 1` while the client is open. */
  watchLeader(leader: LeaderSource): void {
    let clients = leadersByRegistry.get(this.#registry);
    if (!clients) {
      const live = new Map<string, { service: string; leader: LeaderSource }>();
      clients = live;
      leadersByRegistry.set(this.#registry, live);
      this.#registry.gauge(
        'ozone_client_om_leader',
        'The OM node each client sends its calls to first (1), by service and node',
        ['client', 'service', 'node_id', 'address'],
        function collect() {
          this.reset();
          for (const [client, { service, leader: current }] of live) {
            const l = current();
            if (l) this.labels(client, service, l.nodeId, l.address).set(1);
          }
        },
      );
    }
    clients.set(this.#client, { service: this.#service, leader });
  }

  /** Stops exposing the client's leader (the client closed). */
  unwatchLeader(): void {
    leadersByRegistry.get(this.#registry)?.delete(this.#client);
  }
}
