import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkNonEmptyString, InvalidOptionError } from '@fastpath/core';

/** Options of {@link startRoundRobinProxy}. */
export interface RoundRobinProxyOptions {
  /** The instances' origins (`http://127.0.0.1:9600`), in the order requests go to them. Required, one or more. */
  targets: readonly string[];
  /** Address the proxy binds (port 0: the kernel picks). Default `127.0.0.1`. */
  host?: string;
}

/** The header of each answer naming the instance that served it (its index in `targets`). */
export const ROUND_ROBIN_BACKEND_HEADER = 'x-fastpath-backend';

/** A running round-robin proxy. Dispose of it with `close()` or `await using`. */
export interface RoundRobinProxy extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Requests forwarded to each target so far, in the targets' order. */
  served(): readonly number[];
  /** Stops listening and closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * An HTTP load balancer in front of a KMS fleet, as one runs in production (HAProxy or nginx in
 * HTTP mode): each request goes to the next instance in turn, whichever connection it came on,
 * so consecutive requests of one client land on different instances and a cookie minted by one
 * is presented to the others. Bodies stream through; hop-by-hop headers are not forwarded; each
 * answer gets `x-fastpath-backend: <index>`. An instance that cannot be reached answers 502.
 *
 * @throws InvalidOptionError for no targets or a target that is not an http origin
 * @example
 * ```ts
 * await using proxy = await startRoundRobinProxy({ targets: [hadoop.origin, fastpathA.origin] });
 * await fetch(`${proxy.url}/kms/v1/keys/names?user.name=alice`); // served by the first, the next by the second
 * ```
 */
export async function startRoundRobinProxy(options: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  if (!Array.isArray(options.targets) || options.targets.length === 0) {
    throw new InvalidOptionError('targets', 'expected one or more http origins');
  }
  const targets = options.targets.map((t, i) => {
    let url: URL;
    try {
      url = new URL(checkNonEmptyString(`targets[${i}]`, t));
    } catch {
      throw new InvalidOptionError(`targets[${i}]`, `not a URL: ${JSON.stringify(t)}`);
    }
    if (url.protocol !== 'http:') throw new InvalidOptionError(`targets[${i}]`, `expected http://, got ${t}`);
    return url;
  });
  const host = checkNonEmptyString('host', options.host ?? '127.0.0.1');
  const agent = new Agent({ keepAlive: true });
  const served = targets.map(() => 0);
  let next = 0;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const index = next;
    next = (next + 1) % targets.length;
    served[index] = (served[index] ?? 0) + 1;
    const target = targets[index] as URL;
    const headers = { ...req.headers };
    for (const hop of ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']) {
      delete headers[hop];
    }
    headers.host = target.host;
    const upstream = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        const out: Record<string, string | string[] | undefined> = {
          ...answer.headers,
          [ROUND_ROBIN_BACKEND_HEADER]: String(index),
        };
        delete out.connection;
        delete out['keep-alive'];
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (res.headersSent) {
        res.destroy(error);
        return;
      }
      res.writeHead(502, { 'content-type': 'text/plain', [ROUND_ROBIN_BACKEND_HEADER]: String(index) });
      res.end(`instance ${index} (${target.origin}) cannot be reached: ${error.message}`);
    });
    req.pipe(upstream);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      agent.destroy();
    }));
  return {
    url: `http://${host}:${port}`,
    served: () => [...served],
    close,
    [Symbol.asyncDispose]: close,
  };
}
