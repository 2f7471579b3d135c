// Names long enough to make an answer's headers outgrow what the client reads: the server now
// refuses them before doing anything, and an answer that still overflows (another server) is
// reported as what it is, not as an unreachable server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KmsClient } from '../src/index.js';
import { startRealKms, type RealKms } from './support/real-kms.js';
import { failure } from './support/failure.js';

describe('oversized names and answers', () => {
  let kms: RealKms;
  beforeAll(async () => {
    kms = await startRealKms();
  });
  afterAll(async () => {
    await kms.close();
  });

  it('a 70,000-character key name is refused as a bad request and creates no key', async () => {
    const admin = kms.as('admin');
    const err = await failure(admin.createKey('a'.repeat(70_000)));
    expect(err.code).toBe('ERR_KMS_BAD_REQUEST');
    expect(err.status).toBe(400);
    expect(err.remoteMessage).toMatch(/at most 1024 bytes/);
    expect(await admin.getKeyNames()).toEqual([]);
  });

  it('a 9,000-character user name is refused as a bad request, and a long one that is accepted is readable', async () => {
    const err = await failure(kms.as('u'.repeat(9000)).getKeyNames());
    expect(err.code).toBe('ERR_KMS_BAD_REQUEST');
    expect(err.remoteMessage).toMatch(/'user.name' must be at most 256 bytes/);
    expect(await kms.as('u'.repeat(256)).getKeyNames()).toEqual([]);
  });

  it('an answer whose headers overflow is ERR_KMS_BAD_RESPONSE naming the headers, not unreachable', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(201, {
        location: `http://x/kms/v1/key/${'a'.repeat(70_000)}`,
        'content-type': 'application/json',
      });
      res.end('{"name":"a","versionName":"a@0","material":null}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new KmsClient({ url: `http://127.0.0.1:${port}/kms`, user: 'admin', retries: 0 });
    try {
      const err = await failure(client.createKey('a'));
      expect(err.code).toBe('ERR_KMS_BAD_RESPONSE');
      expect(err.retriable).toBe(false);
      expect(err.message).toMatch(/headers are larger than the \d+ bytes this client reads/);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
