import { connect, createServer, type Server, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  server: Socket | undefined;
}

/**
 * A TCP relay on 127.0.0.1 port 0 in front of a real ZooKeeper, for faults the client library
 * must survive: the bytes are ZooKeeper's own, the relay only cuts, withholds or adds to them.
 */
export class TcpProxy implements AsyncDisposable {
  readonly #server: Server;
  readonly #targetPort: number;
  readonly #pairs = new Set<Pair>();
  #frozen = false;
  #cutAfterBytes: number | undefined;

  private constructor(server: Server, targetPort: number) {
    this.#server = server;
    this.#targetPort = targetPort;
    server.on('connection', (client) => this.#accept(client));
  }

  static async start(targetPort: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, targetPort);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get connectString(): string {
    return `127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }

  /** Client connections the relay holds open now. */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.#server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  /**
   * Accepts connections but relays nothing, in either direction, until `thaw()`: a server that is
   * paused, or still starting, as a client sees it.
   */
  freeze(): void {
    this.#frozen = true;
  }

  thaw(): void {
    this.#frozen = false;
  }

  /** The next bytes from the server: relay only the first `bytes`, then drop the connection. */
  cutNextAnswerAfter(bytes: number): void {
    this.#cutAfterBytes = bytes;
  }

  /** Writes `frame` to every client, as if the server had sent it. */
  inject(frame: Buffer): void {
    for (const { client } of this.#pairs) client.write(frame);
  }

  /** Drops every connection. */
  dropAll(): void {
    for (const pair of this.#pairs) this.#drop(pair);
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #accept(client: Socket): void {
    const pair: Pair = { client, server: undefined };
    this.#pairs.add(pair);
    client.on('error', () => this.#drop(pair));
    client.on('close', () => this.#drop(pair));
    const server = connect(this.#targetPort, '127.0.0.1');
    pair.server = server;
    server.on('error', () => this.#drop(pair));
    server.on('close', () => this.#drop(pair));
    client.on('data', (chunk: Buffer) => {
      if (!this.#frozen) server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (this.#frozen) return;
      const cut = this.#cutAfterBytes;
      if (cut === undefined) {
        client.write(chunk);
        return;
      }
      this.#cutAfterBytes = undefined;
      client.write(chunk.subarray(0, cut), () => this.#drop(pair));
    });
  }

  #drop(pair: Pair): void {
    if (!this.#pairs.delete(pair)) return;
    pair.client.destroy();
    pair.server?.destroy();
  }
}
