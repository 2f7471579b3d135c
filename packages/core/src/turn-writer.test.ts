import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { JOIN_LIMIT_BYTES, TurnWriter } from './turn-writer.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A real loopback connection; `writes` records each Buffer the client socket was handed. */
async function connection(): Promise<{
  client: Socket;
  writes: Buffer[];
  received: () => Promise<Buffer>;
  close: () => Promise<void>;
}> {
  const chunks: Buffer[] = [];
  let ended: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((peer) => {
    peer.on('data', (c: Buffer) => chunks.push(c));
    ended = once(peer, 'end');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  const writes: Buffer[] = [];
  const write = client.write.bind(client);
  client.write = (chunk: Buffer) => {
    writes.push(chunk);
    return write(chunk);
  };
  return {
    client,
    writes,
    received: async () => {
      client.end();
      await ended;
      return Buffer.concat(chunks);
    },
    close: async () => {
      client.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

const bytes = (n: number, seed: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255));

describe('TurnWriter', () => {
  it.each(['tick', 'immediate'] as const)(
    'sends a turn of small writes (%s) as one socket write, in order, and nothing before the turn ends',
    async (flushAt) => {
      const c = await connection();
      try {
        const out = new TurnWriter(c.client, { flushAt });
        const sent = [bytes(5, 1), bytes(300, 2), bytes(1, 3), bytes(4000, 4)];
        for (const chunk of sent) out.write(chunk);
        expect(c.writes).toHaveLength(0);
        expect(out.pendingBytes).toBe(4306);
        await settle();
        expect(c.writes).toHaveLength(1);
        expect(c.writes[0]).toEqual(Buffer.concat(sent));
        expect(out.pendingBytes).toBe(0);
        // The next turn's writes are a write of their own.
        out.write(bytes(7, 5));
        await settle();
        expect(c.writes).toHaveLength(2);
        expect(await c.received()).toEqual(Buffer.concat([...sent, bytes(7, 5)]));
      } finally {
        await c.close();
      }
    },
  );

  it('hands one chunk over as it is, and writes large turns chunk by chunk without copying', async () => {
    const c = await connection();
    try {
      const out = new TurnWriter(c.client, { flushAt: 'tick' });
      const alone = bytes(100, 6);
      out.write(alone);
      await settle();
      expect(c.writes[0]).toBe(alone);
      const large = [bytes(10, 7), bytes(JOIN_LIMIT_BYTES, 8), bytes(20, 9)];
      for (const chunk of large) out.write(chunk);
      await settle();
      expect(c.writes.slice(1)).toHaveLength(3);
      c.writes.slice(1).forEach((w, i) => expect(w).toBe(large[i]));
      expect(await c.received()).toEqual(Buffer.concat([alone, ...large]));
    } finally {
      await c.close();
    }
  });

  it('flush() sends at once, clear() drops what is queued, and a destroyed socket gets nothing', async () => {
    const c = await connection();
    try {
      const out = new TurnWriter(c.client, { flushAt: 'immediate' });
      out.write(bytes(3, 10));
      out.flush();
      expect(c.writes).toEqual([bytes(3, 10)]);
      out.write(bytes(4, 11));
      out.clear();
      await settle();
      expect(c.writes).toHaveLength(1);
      expect(await c.received()).toEqual(bytes(3, 10));
      out.write(bytes(5, 12));
      c.client.destroy();
      await settle();
      expect(c.writes).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it('hands a custom send the turn’s chunks and their length', async () => {
    const c = await connection();
    try {
      const seen: Array<{ chunks: readonly Buffer[]; bytes: number }> = [];
      const out = new TurnWriter(c.client, {
        flushAt: 'tick',
        send: (socket, chunks, n) => {
          seen.push({ chunks: [...chunks], bytes: n });
          socket.write(Buffer.from(`${chunks.length}:${n}`));
        },
      });
      out.write(bytes(2, 13));
      out.write(bytes(9, 14));
      await settle();
      expect(seen).toEqual([{ chunks: [bytes(2, 13), bytes(9, 14)], bytes: 11 }]);
      expect((await c.received()).toString()).toBe('2:11');
    } finally {
      await c.close();
    }
  });
});
