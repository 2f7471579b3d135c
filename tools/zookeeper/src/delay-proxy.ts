import { connect, createServer, type Server, type Socket } from 'node:net';
import { checkInteger, checkNonEmptyString, checkNumber, InvalidOptionError } from '@fastpath/core';
import { DelayLine } from './internal/delay-line.js';

/** Options of {@link startDelayProxy}; defaults in {@link DEFAULT_DELAY_PROXY_OPTIONS}. */
export interface DelayProxyOptions {
  /**
   * Where to forward: `host:port[,host:port...]`, e.g. a fixture's `connectString`. Each target
   * gets its own listener; the proxy's `connectString` lists them in the same order. Required.
   */
  target: string;
  /** One-way delay added in each direction, in milliseconds (fractions allowed, 0 to 10000). Default 0. */
  delayMs?: number;
  /** Address the listeners bind. Default `127.0.0.1`. */
  host?: string;
  /**
   * Ports the listeners bind, one per target in the targets' order (0: the kernel picks). Given
   * to start a proxy again where its clients know it, after `close()` cut them off. Default all 0.
   */
  ports?: readonly number[];
}

export const DEFAULT_DELAY_PROXY_OPTIONS = Object.freeze({ delayMs: 0, host: '127.0.0.1' });

/** What a delay proxy has forwarded, and how exactly it kept its delay. */
export interface DelayProxyStats {
  delayMs: number;
  /** Connections accepted so far, and open now. */
  connections: number;
  openConnections: number;
  bytesToTarget: number;
  bytesToClient: number;
  /** Chunks (and ends) delivered, both directions. */
  delivered: number;
  /** Shortest arrival-to-delivery time of any chunk, ms (never below `delayMs`); null before the first. */
  heldMinMs: number | null;
  /** Mean and largest time a chunk was held beyond `delayMs`, ms. */
  lateMeanMs: number;
  lateMaxMs: number;
}

/** A running delay proxy. Dispose of it with `close()` or `await using`. */
export interface DelayProxy extends AsyncDisposable {
  /** `127.0.0.1:<port>,...`: one listener per target, in the targets' order. */
  readonly connectString: string;
  readonly delayMs: number;
  stats(): DelayProxyStats;
  /** Stops listening, drops every connection and what is still queued. Idempotent. */
  close(): Promise<void>;
}

interface Target {
  host: string;
  port: number;
}

/**
 * A TCP forwarding proxy that adds a fixed one-way delay in each direction: a model of a server
 * on another host, where the kernel cannot inject latency (no `netem`). Every chunk is forwarded
 * at its arrival time plus `delayMs` (never earlier), in arrival order per connection; chunks in
 * flight overlap, so the delay costs latency, not throughput. An end (FIN) is passed on after the
 * same delay; a reset or error on either side drops both at once.
 *
 * @throws InvalidOptionError for a bad target or delay
 * @example
 * ```ts
 * await using zk = await startZooKeeper();
 * await using proxy = await startDelayProxy({ target: zk.connectString, delayMs: 2 });
 * const client = await connectZooKeeper(proxy.connectString); // every request +4 ms round trip
 * ```
 */
export async function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  const targets = parseTargets(options.target);
  const delayMs = checkNumber('delayMs', options.delayMs ?? DEFAULT_DELAY_PROXY_OPTIONS.delayMs, 0, 10_000);
  const host = checkNonEmptyString('host', options.host ?? DEFAULT_DELAY_PROXY_OPTIONS.host);
  const ports = checkPorts(options.ports, targets.length);
  const line = new DelayLine(delayMs);
  const sockets = new Set<Socket>();
  const counts = { connections: 0, bytesToTarget: 0, bytesToClient: 0 };
  const servers: Server[] = [];
  try {
    for (const [index, target] of targets.entries()) {
      const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
        counts.connections++;
        const upstream = connect({
          host: target.host,
          port: target.port,
          allowHalfOpen: true,
          noDelay: true,
        });
        const drop = (): void => {
          client.destroy();
          upstream.destroy();
        };
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', drop);
        }
        relay(client, upstream, line, (n) => (counts.bytesToTarget += n));
        relay(upstream, client, line, (n) => (counts.bytesToClient += n));
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(ports[index], host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    }
  } catch (err) {
    for (const server of servers) server.close();
    await line.close();
    throw err;
  }
  const connectString = servers
    .map((server) => `${host}:${(server.address() as { port: number }).port}`)
    .join(',');
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      const stopped = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      for (const socket of sockets) socket.destroy();
      await Promise.all(stopped);
      await line.close();
    })());
  return {
    connectString,
    delayMs,
    stats: () => ({
      delayMs,
      connections: counts.connections,
      openConnections: Math.ceil(sockets.size / 2),
      bytesToTarget: counts.bytesToTarget,
      bytesToClient: counts.bytesToClient,
      ...line.figures(),
    }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Forwards `from` to `to` through the delay line, with back-pressure on `from`. */
function relay(from: Socket, to: Socket, line: DelayLine, count: (bytes: number) => void): void {
  from.on('data', (chunk: Buffer) => {
    line.push(() => {
      if (to.destroyed) return;
      count(chunk.length);
      if (!to.write(chunk) && !from.isPaused()) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    });
  });
  from.on('end', () => line.push(() => to.end()));
}

function checkPorts(ports: unknown, targets: number): number[] {
  if (ports === undefined) return new Array<number>(targets).fill(0);
  if (!Array.isArray(ports) || ports.length !== targets)
    throw new InvalidOptionError(
      'ports',
      `expected one port per target (${targets}), got ${JSON.stringify(ports)}`,
    );
  return ports.map((port, i) => checkInteger(`ports[${i}]`, port, 0, 65535));
}

function parseTargets(text: unknown): Target[] {
  const value = checkNonEmptyString('target', text);
  return value.split(',').map((part) => {
    const match = /^(.+):(\d{1,5})$/.exec(part.trim());
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535)
      throw new InvalidOptionError('target', `expected host:port[,host:port...], got "${value}"`);
    return { host: match[1]!, port };
  });
}
