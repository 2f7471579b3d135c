// Ratis's DataStream protocol against the embedded group's DataStream servers (real sockets on
// loopback): what lands in every member's sink, the packets each member saw, the forward that
// commits a stream, the window of packets in flight, and every way a stream fails.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createTestCertificateAuthority, gate, hex, isPending, l, v, waitFor } from '@fastpath/test-support';
import {
  createRaftClient,
  type RaftClient,
  type RaftClientOptions,
  RaftClientClosedError,
  RaftDataStreamError,
  RaftInvalidArgumentError,
  RaftServerError,
  uuidToBytes,
} from '@fastpath/ratis-client';
import {
  AppendLogStateMachine,
  type EmbeddedRaftGroup,
  type EmbeddedRaftGroupOptions,
  type RaftStreamContext,
  type RaftStreamSink,
  startEmbeddedRaftGroup,
} from '@fastpath/ratis-client/testing';
import { readFields } from './support/read-fields.js';

/** One member's sink of one stream, as the state machine below records it. */
interface SinkRecord {
  peerId: string;
  header: string;
  chunks: Buffer[];
  syncs: boolean[];
  closed: boolean;
  cleanedUp: boolean;
}

/** An append log that also takes streams: it records what each member's sink got, and the links. */
class StreamRecorder extends AppendLogStateMachine {
  readonly sinks: SinkRecord[] = [];
  readonly links: Array<{ peerId: string; content: string; index: number }> = [];
  /** A write on this member waits for this (then the hold is dropped). */
  hold: { peerId: string; until: Promise<void>; reached: () => void } | undefined;
  /** A write on this member throws. */
  failWritesOn: string | undefined;
  /** Opening a sink on this member throws. */
  failStreamOn: string | undefined;

  stream(content: Buffer, { peerId }: RaftStreamContext): RaftStreamSink {
    if (this.failStreamOn === peerId) throw new Error(`no block file on ${peerId}`);
    const record: SinkRecord = {
      peerId,
      header: content.toString(),
      chunks: [],
      syncs: [],
      closed: false,
      cleanedUp: false,
    };
    this.sinks.push(record);
    return {
      write: async (data, { sync }) => {
        const hold = this.hold;
        if (hold?.peerId === peerId) {
          this.hold = undefined;
          hold.reached();
          await hold.until;
        }
        if (this.failWritesOn === peerId) throw new Error(`disk full on ${peerId}`);
        record.chunks.push(Buffer.from(data));
        record.syncs.push(sync);
      },
      close: () => {
        record.closed = true;
      },
      cleanUp: () => {
        record.cleanedUp = true;
      },
    };
  }

  link(content: Buffer, index: number, { peerId }: RaftStreamContext): Buffer {
    this.links.push({ peerId, content: content.toString(), index });
    return Buffer.from(`linked at ${index}`);
  }

  data(peerId: string): string {
    return Buffer.concat(this.sinks.filter((s) => s.peerId === peerId).flatMap((s) => s.chunks)).toString();
  }

  holdNextWrite(peerId: string): { release: () => void; reached: Promise<void> } {
    const g = gate();
    this.hold = { peerId, until: g.promise, reached: g.arrive };
    return { release: g.open, reached: g.reached };
  }
}

const disposables: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const d of disposables.splice(0).reverse()) await d.close();
});

async function group(
  options: EmbeddedRaftGroupOptions = {},
): Promise<{ g: EmbeddedRaftGroup; machine: StreamRecorder }> {
  const machine = new StreamRecorder();
  const g = await startEmbeddedRaftGroup({ dataStream: true, stateMachine: machine, ...options });
  disposables.push(g);
  return { g, machine };
}

function client(g: EmbeddedRaftGroup, options: Partial<RaftClientOptions> = {}): RaftClient {
  const c = createRaftClient({ groupId: g.groupId, peers: g.peers, retryPauseMs: 20, ...options });
  disposables.push(c);
  return c;
}

const CLIENT_ID = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const packetsOf = (g: EmbeddedRaftGroup, peerId: string) =>
  g.dataStreamPackets
    .filter((p) => p.peerId === peerId)
    .map((p) => [p.type === 'STREAM_HEADER' ? 'H' : 'D', p.streamOffset, p.dataLength, p.options.join('+')]);

describe('a stream through the group', () => {
  it('chain: every member writes the same bytes at the same offsets, and the forward links it once', async () => {
    const { g, machine } = await group({ groupId: '00112233-4455-4677-8899-aabbccddeeff' });
    const c = client(g, { clientId: CLIENT_ID });
    const stream = c.stream([Buffer.from('block '), Buffer.from('header')]);
    const replies = await Promise.all([
      stream.write(Buffer.from('first chunk;')),
      stream.write([Buffer.from('second '), Buffer.from('chunk;')]),
      stream.write(Buffer.from('third;')),
    ]);
    expect(replies.map((r) => r.bytesWritten)).toEqual([12, 13, 6]);
    expect(replies[0]?.commitInfos.map((i) => i.peerId)).toEqual(['p0', 'p1', 'p2']);
    expect(stream.bytesSent).toBe(31);
    const reply = await stream.close(Buffer.from([0, 0, 0, 9]));
    expect(stream.bytesSent).toBe(35);

    const expected = 'first chunk;second chunk;third;\u0000\u0000\u0000\t';
    for (const peerId of ['p0', 'p1', 'p2']) {
      expect(machine.data(peerId)).toBe(expected);
      expect(packetsOf(g, peerId)).toEqual([
        ['H', 0, expect.any(Number), ''],
        ['D', 0, 12, ''],
        ['D', 12, 13, ''],
        ['D', 25, 6, ''],
        ['D', 31, 4, 'CLOSE'],
      ]);
    }
    expect(machine.sinks.map((s) => [s.peerId, s.header, s.closed])).toEqual([
      ['p0', 'block header', true],
      ['p1', 'block header', true],
      ['p2', 'block header', true],
    ]);
    const headers = g.dataStreamPackets.filter((p) => p.type === 'STREAM_HEADER');
    expect(headers.map((h) => [h.peerId, h.streamId, h.clientId, h.routes, h.successors])).toEqual([
      ['p0', stream.streamId, CLIENT_ID, { p0: ['p1'], p1: ['p2'] }, ['p1']],
      ['p1', stream.streamId, CLIENT_ID, { p0: ['p1'], p1: ['p2'] }, ['p2']],
      ['p2', stream.streamId, CLIENT_ID, { p0: ['p1'], p1: ['p2'] }, []],
    ]);

    // One log entry, linked on every member with the header's content; the forward's reply is the leader's.
    expect(reply.logIndex).toBe(g.lastIndex);
    expect(reply.content.toString()).toBe(`linked at ${reply.logIndex}`);
    expect(machine.links).toEqual(
      ['p0', 'p1', 'p2'].map((peerId) => ({ peerId, content: 'block header', index: reply.logIndex })),
    );
    expect(g.stats.applied).toBe(0);

    // The forward on the wire: type 9, its content the header request byte for byte (type 8,
    // replyId the primary, the routing table on field 14).
    const forward = readFields(g.received.at(-1) as Buffer);
    expect([...forward.keys()]).toEqual([1, 2, 9]);
    const headerRequest = readFields(forward.get(2)?.[0] as Buffer).get(1)?.[0] as Buffer;
    const route = (from: string, to: string) => l(1, [...l(1, l(1, from)), ...l(2, l(1, to))]);
    expect(hex(headerRequest)).toBe(
      hex([
        ...l(1, [
          ...l(1, uuidToBytes(CLIENT_ID)),
          ...l(2, 'p0'),
          ...l(3, l(1, uuidToBytes(g.groupId))),
          ...v(4, stream.streamId),
          ...l(14, [...route('p0', 'p1'), ...route('p1', 'p2')]),
        ]),
        ...l(2, l(1, 'block header')),
        ...l(8, []),
      ]),
    );
  });

  it('star: the primary forwards to every other member itself, and a chain can take any order', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const star = c.stream(Buffer.from('star'), { routing: 'star', primaryId: 'p1' });
    await star.write(Buffer.from('0123456789'));
    await star.write(Buffer.from('abc'));
    await star.close(Buffer.alloc(0));
    const headers = g.dataStreamPackets.filter((p) => p.type === 'STREAM_HEADER');
    expect(headers.map((h) => [h.peerId, h.routes, h.successors])).toEqual([
      ['p1', undefined, ['p0', 'p2']],
      ['p0', undefined, []],
      ['p2', undefined, []],
    ]);
    for (const peerId of ['p0', 'p1', 'p2']) {
      expect(machine.data(peerId)).toBe('0123456789abc');
      expect(packetsOf(g, peerId).slice(1)).toEqual([
        ['D', 0, 10, ''],
        ['D', 10, 3, ''],
        ['D', 13, 0, 'CLOSE'],
      ]);
    }

    const chain = c.stream(Buffer.from('chain'), { peerOrder: ['p2', 'p0', 'p1'] });
    await chain.write(Buffer.from('x'));
    await chain.close(Buffer.from('y'));
    const chainHeaders = g.dataStreamPackets.filter((p) => p.type === 'STREAM_HEADER').slice(3);
    expect(chainHeaders.map((h) => [h.peerId, h.routes, h.successors])).toEqual([
      ['p2', { p2: ['p0'], p0: ['p1'] }, ['p0']],
      ['p0', { p2: ['p0'], p0: ['p1'] }, ['p1']],
      ['p1', { p2: ['p0'], p0: ['p1'] }, []],
    ]);
    expect(machine.links.map((k) => k.content)).toEqual(['star', 'star', 'star', 'chain', 'chain', 'chain']);
  });

  it('the forward follows a leader change like any write, and commits the stream once', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('moved'));
    await stream.write(Buffer.from('data'));
    await g.transferLeadership('p2'); // the client still sends to p0, which answers NotLeader
    const reply = await stream.close(Buffer.alloc(0));
    expect(reply.peerId).toBe('p2');
    expect(c.leaderId).toBe('p2');
    expect(machine.links.map((k) => [k.peerId, k.index])).toEqual([
      ['p2', reply.logIndex],
      ['p0', reply.logIndex],
      ['p1', reply.logIndex],
    ]);
  });

  it('carries SYNC to every member, on a write and on the close', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('h'));
    await stream.write(Buffer.from('a'));
    await stream.write(Buffer.from('b'), { sync: true });
    await stream.close(Buffer.from('c'), { sync: true });
    for (const peerId of ['p0', 'p1', 'p2']) {
      expect(machine.sinks.find((s) => s.peerId === peerId)?.syncs).toEqual([false, true, true]);
      expect(packetsOf(g, peerId).map((p) => p[3])).toEqual(['', '', 'SYNC', 'SYNC+CLOSE']);
    }
  });

  it('keeps at most dataStreamOutstandingRequests packets in flight; the rest wait for room', async () => {
    const { g, machine } = await group();
    const c = client(g, { dataStreamOutstandingRequests: 2 });
    const held = machine.holdNextWrite('p0');
    const stream = c.stream(Buffer.from('h'));
    const chunk = Buffer.alloc(1000, 1);
    const writes = [1, 2, 3, 4, 5].map(() => stream.write(chunk));
    await held.reached;
    // The header was answered; data 1 is held in p0's sink, data 2 is in flight: no room for 3.
    await waitFor('two data packets at p0', () => packetsOf(g, 'p0').length === 3);
    expect(await isPending(writes[2] as Promise<unknown>)).toBe(true);
    expect(stream.bytesSent).toBe(2000);
    expect(packetsOf(g, 'p0').length).toBe(3);
    held.release();
    await Promise.all(writes);
    expect(stream.bytesSent).toBe(5000);
    expect(packetsOf(g, 'p0').map((p) => p[1])).toEqual([0, 0, 1000, 2000, 3000, 4000]);
    await stream.close(Buffer.alloc(0));
    const text = await c.metrics.metrics();
    expect(text).toContain('ratis_client_datastream_packets_total{client="ratis-client",type="data"} 6');
    expect(text).toContain('ratis_client_datastream_bytes_total{client="ratis-client"} 5000');
    expect(text).toContain('ratis_client_datastream_streams_total{client="ratis-client"} 1');
  });

  it('a stream closed and never linked is cleaned up on every member when the group stops', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const held = g.holdCommits(); // the forward's entry never commits
    const stream = c.stream(Buffer.from('h'));
    await stream.write(Buffer.from('data'));
    const closing = stream.close(Buffer.alloc(0)).catch((e: unknown) => e);
    await waitFor(
      'every sink closed',
      () => machine.sinks.length === 3 && machine.sinks.every((s) => s.closed),
    );
    expect(machine.sinks.some((s) => s.cleanedUp)).toBe(false);
    await g.close();
    expect(machine.sinks.map((s) => [s.peerId, s.cleanedUp])).toEqual([
      ['p0', true],
      ['p1', true],
      ['p2', true],
    ]);
    expect(machine.links).toEqual([]);
    await c.close();
    await closing;
    held.release();
  });

  it('a linked stream is not cleaned up when the group stops', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('h'));
    await stream.close(Buffer.from('all of it'));
    await g.close();
    expect(machine.sinks.map((s) => [s.peerId, s.closed, s.cleanedUp])).toEqual([
      ['p0', true, false],
      ['p1', true, false],
      ['p2', true, false],
    ]);
  });

  it('shares one connection per primary among streams, interleaved', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const a = c.stream(Buffer.from('A'));
    const b = c.stream(Buffer.from('B'));
    await Promise.all([a.write(Buffer.from('a1')), b.write(Buffer.from('b1')), a.write(Buffer.from('a2'))]);
    await Promise.all([a.close(Buffer.alloc(0)), b.close(Buffer.from('b2'))]);
    const byHeader = (h: string) =>
      Buffer.concat(
        machine.sinks.filter((s) => s.peerId === 'p2' && s.header === h).flatMap((s) => s.chunks),
      );
    expect(byHeader('A').toString()).toBe('a1a2');
    expect(byHeader('B').toString()).toBe('b1b2');
  });
});

describe('failures', () => {
  it('a primary stopped mid-stream: the outstanding write and every later call fail with ERR_RATIS_DATASTREAM', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('h'));
    await stream.write(Buffer.from('before'));
    const held = machine.holdNextWrite('p0');
    const outstanding = stream.write(Buffer.from('during'));
    await held.reached;
    await g.stopPeer('p0');
    const error = await outstanding.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftDataStreamError);
    expect(error).toMatchObject({ code: 'ERR_RATIS_DATASTREAM', peerId: 'p0', streamId: stream.streamId });
    await expect(stream.write(Buffer.from('after'))).rejects.toBe(error);
    await expect(stream.close(Buffer.alloc(0))).rejects.toBe(error);
    held.release();
  });

  it("a successor's sink that throws: DataStreamException through the chain, as ERR_RATIS_SERVER", async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('h'));
    await stream.write(Buffer.from('fine'));
    machine.failWritesOn = 'p2';
    const error = await stream.write(Buffer.from('lost')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftServerError);
    expect(error).toMatchObject({
      remoteClass: 'org.apache.ratis.protocol.exceptions.DataStreamException',
      peerId: 'p0',
      retriable: false,
    });
    expect((error as RaftServerError).remoteMessage).toContain('disk full on p2');
    await expect(stream.write(Buffer.from('later'))).rejects.toBe(error);
    // The members' sinks of the failed stream are cleaned up.
    await waitFor('every sink cleaned up', () => machine.sinks.every((s) => s.cleanedUp));
    expect(g.dataStreamPackets.filter((p) => p.peerId === 'p0')).toHaveLength(3);
  });

  it("a sink that cannot open: StateMachineException in the DataStreamException's message", async () => {
    const { g, machine } = await group();
    machine.failStreamOn = 'p0';
    const c = client(g);
    const stream = c.stream(Buffer.from('h'), { routing: 'star' });
    const error = await stream.write(Buffer.from('x')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftServerError);
    expect((error as RaftServerError).remoteMessage).toMatch(
      /^org\.apache\.ratis\.protocol\.exceptions\.StateMachineException from Server p0: Error: no block file on p0/,
    );
    expect(g.dataStreamPackets.length).toBeGreaterThan(0);
  });

  it('a data packet failed by the fault hook fails the stream; the next stream goes on', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const stream = c.stream(Buffer.from('h'));
    g.failNextDataPacket('p1', 'injected');
    await expect(stream.write(Buffer.from('x'))).rejects.toMatchObject({
      code: 'ERR_RATIS_SERVER',
      remoteMessage: expect.stringContaining('injected'),
    });
    const next = c.stream(Buffer.from('h2'));
    await next.write(Buffer.from('y'));
    await next.close(Buffer.alloc(0));
    expect(machine.sinks.filter((s) => s.header === 'h2').map((s) => [s.peerId, s.chunks.join('')])).toEqual([
      ['p0', 'y'],
      ['p1', 'y'],
      ['p2', 'y'],
    ]);
  });

  it('a reply for a stream not open on the connection fails the streams on it', async () => {
    const { g } = await group();
    const c = client(g, { clientId: CLIENT_ID });
    const stream = c.stream(Buffer.from('h'));
    await stream.write(Buffer.from('1'));
    // A success for stream 999, which this client never opened.
    const header = [...l(1, [...l(1, uuidToBytes(CLIENT_ID)), ...v(2, 1), ...v(3, 999)]), ...v(3, true)];
    const length = Buffer.alloc(4);
    length.writeInt32BE(header.length);
    g.replaceNextDataStreamReply('p0', () => Buffer.concat([length, Buffer.from(header)]));
    const error = await stream.write(Buffer.from('2')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftDataStreamError);
    expect((error as Error).message).toContain(
      'a reply for stream 999, which is not open on this connection',
    );
  });

  it('a garbled reply frame fails every stream on that connection; a new stream opens a new one', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const first = c.stream(Buffer.from('one'));
    await first.write(Buffer.from('1'));
    g.replaceNextDataStreamReply('p0', () => Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0]));
    const second = c.stream(Buffer.from('two'));
    const error = await second.write(Buffer.from('2')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftDataStreamError);
    expect(error).toMatchObject({ peerId: 'p0', streamId: second.streamId, retriable: false });
    expect((error as Error).message).toContain('not the DataStream protocol');
    await expect(first.write(Buffer.from('1'))).rejects.toMatchObject({
      code: 'ERR_RATIS_DATASTREAM',
      streamId: first.streamId,
    });
    const third = c.stream(Buffer.from('three'));
    await third.write(Buffer.from('3'));
    await third.close(Buffer.alloc(0));
    expect(machine.links.map((k) => k.content)).toEqual(['three', 'three', 'three']);
  });

  it('a packet unanswered within dataStreamRequestTimeoutMs fails its stream (retriable)', async () => {
    const { g, machine } = await group();
    const c = client(g, { dataStreamRequestTimeoutMs: 200 });
    const held = machine.holdNextWrite('p1');
    const stream = c.stream(Buffer.from('h'));
    await expect(stream.write(Buffer.from('slow'))).rejects.toMatchObject({
      code: 'ERR_RATIS_DATASTREAM',
      retriable: true,
      message: expect.stringContaining('within 200 ms'),
    });
    held.release();
    expect(g.dataStreamPackets.length).toBeGreaterThan(0);
  });

  it('refuses a primary without a dataStreamAddress, and a peerOrder that is not the members', async () => {
    const { g } = await group({ dataStream: false });
    const c = client(g);
    expect(() => c.stream(Buffer.from('h'))).toThrow(RaftInvalidArgumentError);
    expect(() => c.stream(Buffer.from('h'))).toThrow(/p0 has no dataStreamAddress/);
    const { g: g2 } = await group();
    const c2 = client(g2);
    expect(() => c2.stream(Buffer.from('h'), { primaryId: 'p9' })).toThrow(RaftInvalidArgumentError);
    expect(() => c2.stream(Buffer.from('h'), { peerOrder: ['p0', 'p1'] })).toThrow(/peerOrder/);
    expect(() => c2.stream(Buffer.from('h'), { primaryId: 'p1', peerOrder: ['p0', 'p1', 'p2'] })).toThrow(
      /peerOrder/,
    );
    expect(g2.dataStreamPackets).toEqual([]);
  });

  it('close() of the client fails open streams, and later streams are refused', async () => {
    const { g, machine } = await group();
    const c = client(g);
    const held = machine.holdNextWrite('p0');
    const stream = c.stream(Buffer.from('h'));
    const pending = stream.write(Buffer.from('x'));
    await held.reached;
    await c.close();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RaftDataStreamError);
    expect((error as Error).cause).toBeInstanceOf(RaftClientClosedError);
    await expect(stream.write(Buffer.from('y'))).rejects.toBe(error);
    expect(() => c.stream(Buffer.from('h'))).toThrow(RaftClientClosedError);
    held.release();
  });

  it('abort() fails what is outstanding, sends nothing more and gives its room back', async () => {
    const { g, machine } = await group();
    const c = client(g, { dataStreamOutstandingRequests: 2 });
    const held = machine.holdNextWrite('p0');
    const stream = c.stream(Buffer.from('h'));
    const pending = [stream.write(Buffer.from('x')), stream.write(Buffer.from('y'))];
    await held.reached;
    await waitFor('both data packets at p0', () => packetsOf(g, 'p0').length === 3);
    const reason = new Error('caller gave up');
    stream.abort(reason);
    for (const p of pending)
      await expect(p).rejects.toMatchObject({ code: 'ERR_RATIS_DATASTREAM', cause: reason });
    await expect(stream.write(Buffer.from('z'))).rejects.toMatchObject({ cause: reason });
    // The two packets in flight left the window with the stream: another stream has room.
    const next = c.stream(Buffer.from('next'));
    await next.write(Buffer.from('n'));
    held.release();
    await next.close(Buffer.alloc(0));
    expect(packetsOf(g, 'p0').filter((p) => p[0] === 'D' && p[2] === 1 && p[1] === 1)).toHaveLength(1);
  });
});

describe('over TLS', () => {
  it('streams through members serving TLS, the client checking their certificates', async () => {
    const ca = await createTestCertificateAuthority('cluster CA');
    try {
      const { g, machine } = await group({ tls: { ...(await ca.issue(['127.0.0.1'])), ca: ca.caCert } });
      const c = client(g, { tls: { ca: ca.caCert } });
      const stream = c.stream(Buffer.from('secure'));
      await stream.write(Buffer.from('over tls'));
      const reply = await stream.close(Buffer.alloc(0));
      expect(reply.logIndex).toBe(g.lastIndex);
      expect(machine.data('p2')).toBe('over tls');
    } finally {
      await ca.dispose();
    }
  });
});
