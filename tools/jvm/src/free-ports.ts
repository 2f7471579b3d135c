import { createServer, type Server } from 'node:net';

/**
 * Picks `count` distinct free loopback ports by binding 127.0.0.1:0 and releasing. Another
 * process can take a port between release and use: callers retry on a clash.
 */
export async function pickFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    // All stay bound until every port is known, so the ports are distinct.
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
      });
    }
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
