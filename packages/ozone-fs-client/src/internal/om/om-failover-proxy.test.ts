// The policy alone, over transports that answer from a script: which node each attempt goes to,
// the call identity every attempt carries, and Ozone's waits. The same policy over real gRPC
// against the embedded HA cluster: test/om-ha.integration.test.ts.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { MetricsRegistry } from '@fastpath/core';
import { rpcError } from '../grpc/grpc-errors.js';
import { OmFailoverProxy, type OmNode } from './om-failover-proxy.js';
import { OmMetrics } from './om-metrics.js';
import type { OmCallIdentity, OmNodeTransport } from './om-node-transport.js';

type Answer = 'ok' | 'refused' | 'not-ready' | `not-leader:${string}` | 'not-leader';
const NOT_LEADER = 'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException';

class ScriptedTransport implements OmNodeTransport {
  readonly calls: OmCallIdentity[] = [];
  constructor(
    readonly address: string,
    readonly nodeId: string,
    readonly script: Answer[],
    readonly log: string[],
  ) {}
  send(_request: Uint8Array, call: OmCallIdentity): Promise<Uint8Array> {
    this.calls.push(call);
    this.log.push(this.nodeId);
    const answer = this.script.shift() ?? 'ok';
    if (answer === 'ok') return Promise.resolve(Uint8Array.of(1));
    if (answer === 'refused')
      return Promise.reject(
        rpcError(this.address, { code: GrpcStatus.UNAVAILABLE, details: 'connect ECONNREFUSED' }),
      );
    const details =
      answer === 'not-ready'
        ? `org.apache.hadoop.ozone.om.exceptions.OMLeaderNotReadyException: ${this.nodeId} is Leader but not ready to process request yet.`
        : answer === 'not-leader'
          ? `${NOT_LEADER}: OM:${this.nodeId} is not the leader. Could not determine the leader node.`
          : `${NOT_LEADER}: OM:${this.nodeId} is not the leader. Suggested leader is OM:${answer.slice(11)}[h/127.0.0.1].`;
    return Promise.reject(rpcError(this.address, { code: GrpcStatus.INTERNAL, details }));
  }
  close(): void {}
}

function proxyOf(scripts: Record<string, Answer[]>, maxFailovers = 50) {
  const log: string[] = [];
  const transports = Object.entries(scripts).map(
    ([id, script], i) => new ScriptedTransport(`127.0.0.1:${1000 + i}`, id, script, log),
  );
  const nodes: OmNode[] = transports.map((t) => ({ nodeId: t.nodeId, address: t.address, transport: t }));
  const metrics = new OmMetrics(new MetricsRegistry(), 'c', 'svc');
  const proxy = new OmFailoverProxy({
    clientId: new Uint8Array(16).fill(7),
    serviceId: 'svc',
    nodes,
    maxFailovers,
    waitBetweenRetriesMs: 1,
    metrics,
  });
  return { proxy, log, transports, stats: metrics.stats };
}

describe('OmFailoverProxy', () => {
  it('goes straight to the leader a follower names, with one call id and a growing retry count', async () => {
    const { proxy, log, transports, stats } = proxyOf({ a: ['not-leader:c'], b: [], c: [] });
    await proxy.call(Uint8Array.of(0));
    expect(log).toEqual(['a', 'c']);
    const [first] = transports[0]?.calls ?? [];
    const [second] = transports[2]?.calls ?? [];
    expect(second?.callId).toBe(first?.callId);
    expect([first?.retryCount, second?.retryCount]).toEqual([0, 1]);
    expect(second?.clientId).toBe(first?.clientId);
    expect(proxy.leader).toEqual({ nodeId: 'c', address: '127.0.0.1:1002' });
    expect(stats).toMatchObject({ suggestedLeaderHops: 1, waitedMs: 0 });
    // The next call starts at the leader, with a new call id.
    await proxy.call(Uint8Array.of(0));
    expect(log).toEqual(['a', 'c', 'c']);
    expect(transports[2]?.calls[1]?.callId).not.toBe(first?.callId);
  });

  it("rotates when no leader is named or the named one is not configured, waiting once per round (Ozone's getWaitTime)", async () => {
    const { proxy, log, stats } = proxyOf({
      a: ['not-leader', 'refused'],
      b: ['not-leader:zz', 'refused'],
      c: ['refused'],
    });
    await proxy.call(Uint8Array.of(0));
    // a b c (round: wait 1) a b (…) c answers.
    expect(log).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(stats.waitedMs).toBe(1);
    expect(stats.failovers).toEqual({ notLeader: 2, leaderNotReady: 0, unreachable: 3 });
  });

  it('does not go back to a named leader that was unreachable in this round (an election not over)', async () => {
    const { proxy, log } = proxyOf({ a: ['not-leader:b'], b: ['refused'], c: ['not-leader:b'], d: [] });
    await proxy.call(Uint8Array.of(0));
    // a names b, b is down, c still names b: the call moves on to d instead of back to b.
    expect(log).toEqual(['a', 'b', 'c', 'd']);
  });

  it('asks a leader that is not ready again, waiting 1, 2, 3 × the wait', async () => {
    const { proxy, log, stats } = proxyOf({ a: ['not-ready', 'not-ready', 'not-ready'], b: [] });
    await proxy.call(Uint8Array.of(0));
    expect(log).toEqual(['a', 'a', 'a', 'a']);
    expect(stats.waitedMs).toBe(1 + 2 + 3);
  });

  it('fails with ERR_OZONE_OM_FAILOVER_EXHAUSTED after the failovers, the last error as cause', async () => {
    const { proxy, log } = proxyOf(
      { a: Array<Answer>(9).fill('refused'), b: Array<Answer>(9).fill('refused') },
      4,
    );
    const err = await proxy.call(Uint8Array.of(0)).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({
      code: 'ERR_OZONE_OM_FAILOVER_EXHAUSTED',
      retriable: true,
      service: 'svc',
      failovers: 4,
    });
    expect((err as Error).cause).toMatchObject({ code: 'ERR_OZONE_UNAVAILABLE' });
    expect(log).toHaveLength(5);
  });
});
