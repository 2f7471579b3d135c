// The client against the embedded group: what it puts on the wire (by Ratis's field numbers), its
// sliding window and bounds, its answers to server failures, timeouts, metrics and close().
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from '@jest/globals';
import { hex, l, v, waitFor } from '@fastpath/test-support';
import {
  createRaftClient,
  type RaftClient,
  type RaftClientOptions,
  uuidToBytes,
} from '@fastpath/ratis-client';
import {
  type EmbeddedRaftGroup,
  type RaftStateMachine,
  startEmbeddedRaftGroup,
} from '@fastpath/ratis-client/testing';
import { field } from './support/read-fields.js';

const run = promisify(execFile);
const disposables: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const d of disposables.splice(0).reverse()) await d.close();
});

async function group(options: Parameters<typeof startEmbeddedRaftGroup>[0] = {}): Promise<EmbeddedRaftGroup> {
  const g = await startEmbeddedRaftGroup(options);
  disposables.push(g);
  return g;
}

function client(g: EmbeddedRaftGroup, options: Partial<RaftClientOptions> = {}): RaftClient {
  const c = createRaftClient({ groupId: g.groupId, peers: g.peers, retryPauseMs: 20, ...options });
  disposables.push(c);
  return c;
}

const CLIENT_ID = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';

describe('on the wire', () => {
  it('writes, reads and watches carry Ratis field numbers, ids and the sliding window as Java sends them', async () => {
    const g = await group({ groupId: '00112233-4455-4677-8899-aabbccddeeff' });
    const c = client(g, { clientId: CLIENT_ID });
    const w1 = await c.send(Buffer.from('one'));
    await c.send(Buffer.from('two'), { replication: 'ALL' });
    await c.sendReadOnly(Buffer.alloc(0));
    await c.watch(w1.logIndex, { replication: 'ALL_COMMITTED' });
    const header = (callId: number, window: number[]) => [
      ...l(1, uuidToBytes(CLIENT_ID)),
      ...l(2, 'p0'),
      ...l(3, l(1, uuidToBytes(g.groupId))),
      ...v(4, callId),
      ...v(5, true),
      ...(window.length > 0 ? l(15, window) : []),
    ];
    expect(g.received.map((b) => hex(b))).toEqual([
      // The first request of the ordered stream: seqNum 1, isFirst; an empty write type on field 3.
      hex([...l(1, header(1, [...v(1, 1), ...v(2, true)])), ...l(2, l(1, 'one')), ...l(3, [])]),
      // Then seqNum 2 without isFirst (false stays off the wire, as in Java); replication ALL.
      hex([...l(1, header(2, v(1, 2))), ...l(2, l(1, 'two')), ...l(3, v(1, 1))]),
      // A read-only query with empty content: no message content, an empty read type on field 4.
      hex([...l(1, header(3, v(1, 3))), ...l(2, []), ...l(4, [])]),
      // A watch on the unordered stream: no window, no message, index and ALL_COMMITTED (3).
      hex([...l(1, header(4, [])), ...l(6, [...v(1, w1.logIndex), ...v(2, 3)])]),
    ]);
  });

  it('sends the first request of a stream alone and pipelines the rest once it is answered', async () => {
    const g = await group();
    const c = client(g);
    const held = g.holdCommits();
    const writes = [1, 2, 3, 4].map((i) => c.send(Buffer.from(`w${i}`)));
    await waitFor('the first write at the leader', () => g.exchanges.some((e) => e.direction === 'in'));
    held.release();
    await Promise.all(writes);
    const order = g.exchanges.map((e) => `${e.direction}${e.callId}`);
    expect(order.slice(0, 2)).toEqual(['in1', 'out1']);
    expect(order.slice(2).sort()).toEqual(['in2', 'in3', 'in4', 'out2', 'out3', 'out4']);
  });

  it('re-sends an unanswered request with its call id, first on a new stream, and the retry cache answers it', async () => {
    const g = await group();
    const c = client(g, { rpcRequestTimeoutMs: 500 });
    await c.send(Buffer.from('before'));
    g.dropReplies(1, 'write');
    const reply = await c.send(Buffer.from('lost-reply'));
    const sent = g.received.slice(1).map((b) => ({
      callId: field(b, 1, 4),
      seqNum: field(b, 1, 15, 1),
      isFirst: field(b, 1, 15, 2),
    }));
    // The first send in the pipeline (seqNum 2), then re-sends on new streams: the same call id,
    // first on their stream (a loaded machine may let more than one attempt time out).
    expect(sent[0]).toEqual({ callId: 2, seqNum: 2, isFirst: undefined });
    expect(sent.length).toBeGreaterThan(1);
    for (const resent of sent.slice(1)) expect(resent).toEqual({ callId: 2, seqNum: 1, isFirst: 1 });
    expect(reply.callId).toBe(2);
    // Applied once; the leader's retry cache answered the re-send (a silent leader is left for the
    // next member first, which answers NotLeader and sends the client back).
    expect(g.stats.applied).toBe(2);
    expect(g.stats.retryCacheHits).toBeGreaterThanOrEqual(1);
  });

  it('keeps at most maxOutstandingRequests writes in flight, and admits the rest in order', async () => {
    const g = await group();
    const c = client(g, { maxOutstandingRequests: 4 });
    await c.send(Buffer.from('warm')); // the stream's first request goes alone
    const held = g.holdCommits(); // the leader takes the writes and answers none
    const writes = Array.from({ length: 10 }, (_, i) => c.send(Buffer.from(`w${i}`)));
    const arrived = () => g.exchanges.filter((e) => e.direction === 'in').length - 1;
    await waitFor('four writes at the leader', () => arrived() === 4);
    held.release();
    await Promise.all(writes);
    let inFlight = 0;
    let most = 0;
    const callIds: number[] = [];
    for (const e of g.exchanges.slice(2)) {
      inFlight += e.direction === 'in' ? 1 : -1;
      most = Math.max(most, inFlight);
      if (e.direction === 'in') callIds.push(e.callId);
    }
    expect(most).toBe(4);
    expect(callIds).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('does not count watches against maxOutstandingRequests, as Ratis sends them outside it', async () => {
    const g = await group({ watchTimeoutMs: 10_000 });
    const c = client(g, { maxOutstandingRequests: 1 });
    // A watch of an index far ahead waits for the server's watch timeout, long after the write.
    let watchSettled = false;
    const watch = c
      .watch(1_000_000, { replication: 'MAJORITY_COMMITTED' })
      .finally(() => (watchSettled = true));
    await waitFor('the watch at the leader', () => g.exchanges.some((e) => e.direction === 'in'));
    const reply = await c.send(Buffer.from('after-the-watch'));
    expect(reply.logIndex).toBeGreaterThan(0);
    expect(watchSettled).toBe(false);
    const failed = expect(watch).rejects.toMatchObject({ code: 'ERR_RATIS_CLIENT_CLOSED' });
    await c.close(); // the pending watch fails with the client's close
    await failed;
  });
});

describe('server answers', () => {
  it('retries the same member after a pause on LeaderNotReady', async () => {
    const g = await group();
    const c = client(g);
    await c.send(Buffer.from('warm'));
    g.replaceNextReply(
      () => Buffer.from([...l(1, v(4, 2)), ...l(6, l(1, l(1, 'p0')))]), // leaderNotReadyException for call 2
      'write',
    );
    const reply = await c.send(Buffer.from('after-not-ready'));
    expect(reply.peerId).toBe('p0');
    expect(g.stats.retryCacheHits).toBe(1);
    expect(g.exchanges.filter((e) => e.direction === 'in' && e.callId === 2).map((e) => e.peerId)).toEqual([
      'p0',
      'p0',
    ]);
  });

  it('leaves a leader that stays silent for one whole attempt for the next member', async () => {
    const g = await group({ electionDelayMs: 0 });
    const c = client(g, { rpcRequestTimeoutMs: 300 });
    await c.send(Buffer.from('before'));
    await g.pausePeer('p0'); // alive, answers nothing; p1 is elected
    const reply = await c.send(Buffer.from('after'));
    expect(reply.peerId).toBe(await g.leaderId());
    // One silent attempt on p0, not one per retry of the same member.
    const resends =
      (await c.metrics.registry.getSingleMetric('ratis_client_resends_total')?.get())?.values ?? [];
    expect(resends.filter((r) => r.labels.reason === 'timeout').map((r) => r.value)).toEqual([1]);
    await g.resumePeer('p0');
  });

  it('turns a StateMachineException into ERR_RATIS_STATE_MACHINE with the class and message, and goes on', async () => {
    const machine: RaftStateMachine = {
      apply: (content) => {
        if (content.toString() === 'bad') throw new RangeError('no bad writes');
        return Buffer.from('ok');
      },
      query: () => Buffer.alloc(0),
    };
    const g = await group({ stateMachine: machine });
    const c = client(g);
    await expect(c.send(Buffer.from('bad'))).rejects.toMatchObject({
      code: 'ERR_RATIS_STATE_MACHINE',
      retriable: false,
      remoteClass: 'org.apache.ratis.protocol.exceptions.StateMachineException',
      remoteMessage: 'RangeError: no bad writes',
      peerId: 'p0',
    });
    await expect(c.send(Buffer.from('good'))).resolves.toMatchObject({ content: Buffer.from('ok') });
  });

  it('fails every request of a stream the server refuses for a group it does not have, without re-sending', async () => {
    const g = await group();
    const c = createRaftClient({ groupId: '99999999-9999-4999-8999-999999999999', peers: g.peers });
    disposables.push(c);
    await expect(c.send(Buffer.from('x'))).rejects.toMatchObject({
      code: 'ERR_RATIS_SERVER',
      retriable: false,
      remoteClass: 'org.apache.ratis.protocol.exceptions.GroupMismatchException',
    });
    expect(g.exchanges.filter((e) => e.direction === 'in')).toHaveLength(1);
  });

  it('answers ERR_RATIS_TIMEOUT, retriable, with the last failure, when a write outlives writeTimeoutMs', async () => {
    const g = await group();
    const c = client(g, { writeTimeoutMs: 1000, rpcRequestTimeoutMs: 100 });
    g.holdCommits();
    const error = await c.send(Buffer.from('never-committed')).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_RATIS_TIMEOUT',
      retriable: true,
      operation: 'write',
      timeoutMs: 1000,
    });
    // The last failure seen: the silent leader's attempt timeout, or a member that is not the leader.
    expect((error as Error).cause).toMatchObject({
      code: expect.stringMatching(/^ERR_RATIS_(TIMEOUT|SERVER)$/),
    });
  });

  it('still names the silent attempt when the event loop wakes only after the write deadline', async () => {
    const g = await group();
    const c = client(g, { writeTimeoutMs: 300, rpcRequestTimeoutMs: 100 });
    g.holdCommits();
    const write = c.send(Buffer.from('never-committed')).catch((e: unknown) => e);
    await waitFor('the write at the leader', () => g.exchanges.some((e) => e.direction === 'in'));
    // A busy process: nothing runs until both the attempt's timeout and the deadline have passed,
    // so both fall due in one tick of the client's timer.
    const stalledUntil = Date.now() + 400;
    while (Date.now() < stalledUntil);
    const error = await write;
    expect(error).toMatchObject({ code: 'ERR_RATIS_TIMEOUT', timeoutMs: 300 });
    expect((error as Error).cause).toMatchObject({
      code: 'ERR_RATIS_TIMEOUT',
      message: expect.stringContaining('one attempt on p0'),
    });
  });
});

describe('metrics and close', () => {
  it('records requests, re-sends and leader changes by the core conventions', async () => {
    const g = await group();
    const c = client(g, { leaderId: 'p1', name: 'm1' });
    await c.send(Buffer.from('a'));
    await c.sendReadOnly(Buffer.alloc(0));
    await c.watch(1, { replication: 'MAJORITY_COMMITTED' });
    const text = await c.metrics.metrics();
    expect(text).toContain('ratis_client_request_seconds_count{client="m1",type="write"} 1');
    expect(text).toContain('ratis_client_requests_total{client="m1",type="read",outcome="ok"} 1');
    expect(text).toContain('ratis_client_resends_total{client="m1",reason="not_leader"} 1');
    expect(text).toContain('ratis_client_leader_changes_total{client="m1"} 1');
    expect(text).toContain('ratis_client_outstanding_requests{client="m1"} 0');
  });

  it('close() fails what is pending, refuses new calls and leaves nothing that keeps a process alive', async () => {
    const g = await group();
    const c = client(g);
    const held = g.holdCommits();
    const pending = c.send(Buffer.from('pending'));
    await waitFor('the write at the leader', () => g.received.length === 1);
    await c.close();
    await expect(pending).rejects.toMatchObject({ code: 'ERR_RATIS_CLIENT_CLOSED' });
    await expect(c.send(Buffer.from('late'))).rejects.toMatchObject({ code: 'ERR_RATIS_CLIENT_CLOSED' });

    // A process whose only work is a client exits by itself once the client is closed.
    held.release();
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=development',
        join(__dirname, 'support', 'close-exits-main.ts'),
        g.groupId,
        JSON.stringify(g.peers),
      ],
      { timeout: 60_000 },
    );
    expect(stdout.trim()).toBe('closed');
  });
});
