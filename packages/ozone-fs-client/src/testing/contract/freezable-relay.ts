// A TCP relay on loopback in front of one datanode: it forwards bytes both ways untouched (the
// peers speak their own protocol through it) and can freeze, holding every byte it receives until
// it thaws. A frozen relay is a datanode whose streams stop answering while its connection stays up,
// on any cluster, whatever the datanode is.
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export class FreezableRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #frozen = false;
  readonly #thawed: Array<() => void> = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a relay on a free loopback port to `target` (`host:port`). */
  static async start(target: string): Promise<FreezableRelay> {
    const at = target.lastIndexOf(':');
    const host = target.slice(0, at);
    const port = Number(target.slice(at + 1));
    const server = createServer();
    const relay = new FreezableRelay(server);
    server.on('connection', (inbound) => relay.#pair(inbound, createConnection({ host, port })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  /** `host:port` to dial instead of the datanode. */
  get address(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  freeze(): void {
    this.#frozen = true;
  }

  thaw(): void {
    this.#frozen = false;
    for (const resume of this.#thawed.splice(0)) resume();
  }

  async close(): Promise<void> {
    this.thaw();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #pair(a: Socket, b: Socket): void {
    for (const s of [a, b]) {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
      s.on('error', () => undefined);
    }
    this.#pipe(a, b);
    this.#pipe(b, a);
    a.on('close', () => b.destroy());
    b.on('close', () => a.destroy());
  }

  /** Forwards `from` to `to`; while frozen, the bytes wait here, in order. */
  #pipe(from: Socket, to: Socket): void {
    let held = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      held = held.then(async () => {
        if (this.#frozen) await new Promise<void>((resolve) => this.#thawed.push(resolve));
        if (!to.destroyed) to.write(chunk);
      });
    });
  }
}
