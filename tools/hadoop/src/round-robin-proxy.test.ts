import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROUND_ROBIN_BACKEND_HEADER, startRoundRobinProxy } from './round-robin-proxy.js';

/** A server answering with its name, the request's method, path and body, and a reason phrase. */
async function echo(name: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.statusMessage = `from ${name}`;
      res.setHeader('set-cookie', `who=${name}`);
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body, cookie: req.headers.cookie }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('startRoundRobinProxy', () => {
  it('sends each request to the next instance in turn, with method, path, body, headers and reason phrase', async () => {
    const backends = await Promise.all(['a', 'b', 'c'].map(echo));
    await using proxy = await startRoundRobinProxy({ targets: backends.map((b) => b.origin) });
    try {
      const seen: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${proxy.url}/kms/v1/x?n=${i}`, {
          method: 'POST',
          body: `body ${i}`,
          headers: { cookie: 'hadoop.auth=abc' },
        });
        seen.push({
          backend: res.headers.get(ROUND_ROBIN_BACKEND_HEADER),
          reason: res.statusText,
          setCookie: res.headers.get('set-cookie'),
          ...((await res.json()) as object),
        });
      }
      expect(seen).toEqual(
        ['a', 'b', 'c', 'a'].map((name, i) => ({
          backend: String(i % 3),
          reason: `from ${name}`,
          setCookie: `who=${name}`,
          name,
          method: 'POST',
          url: `/kms/v1/x?n=${i}`,
          body: `body ${i}`,
          cookie: 'hadoop.auth=abc',
        })),
      );
      expect(proxy.served()).toEqual([2, 1, 1]);
    } finally {
      for (const b of backends) b.server.close();
    }
  });

  it('answers 502 for an instance that cannot be reached, and refuses no targets', async () => {
    const gone = await echo('gone');
    await new Promise((resolve) => gone.server.close(resolve));
    await using proxy = await startRoundRobinProxy({ targets: [gone.origin] });
    const res = await fetch(`${proxy.url}/kms/v1/keys/names`);
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/^instance 0 \(http:\/\/127\.0\.0\.1:\d+\) cannot be reached/);
    await expect(startRoundRobinProxy({ targets: [] })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
    await expect(startRoundRobinProxy({ targets: ['https://x'] })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
    });
  });
});
