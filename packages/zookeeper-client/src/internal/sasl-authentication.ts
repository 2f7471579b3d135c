import zookeeper from 'node-zookeeper-client';
import type { Client } from 'node-zookeeper-client';
import { ZooKeeperSaslError, type ZooKeeperSaslFailureReason } from '../zookeeper-client-errors.js';
import type { ResolvedZooKeeperSaslOptions, ZooKeeperSaslSession } from '../zookeeper-sasl.js';
import { checkWorkaround } from './check-workaround.js';
import {
  CONNECTION_STATES,
  connectionManagerOf,
  type ConnectionManagerInternals,
} from './connection-manager.js';
import { decodeSaslReply, encodeSaslRequest, frameXid, splitFrames, type SaslReply } from './sasl-frames.js';
import { serverPrincipalHost } from './server-principal-host.js';

// SASL on node-zookeeper-client 1.1.3, which has none. After each connection's session handshake
// the library sends whatever its queue holds; ZooKeeper's Java client instead holds everything
// back until the SASL exchange is over, so that no request runs unauthenticated (a server with
// `sessionRequireClientSASLAuth` closes the session on the first one). The same is done here:
// the queue's sending is gated until the exchange of the current connection succeeded, the SASL
// requests are written to the socket directly, and their answers are taken from the socket's data
// before the library sees it (it cannot read a SASL answer, and would drop the connection).
// Every state other than connected ends the connection's exchange; the next connection runs a
// new one. A failed exchange puts the client in the library's AUTHENTICATION_FAILED state, as the
// Java client does: no reconnection, and every queued or later request fails with AUTH_FAILED.

/** Emitted on the `Client` when a connection's SASL exchange succeeded (no argument). */
export const SASL_AUTHENTICATED_EVENT = 'saslAuthenticated';
/** Emitted on the `Client` with the `ZooKeeperSaslError` when a connection's SASL exchange failed. */
export const SASL_FAILED_EVENT = 'saslFailed';

const ZK_ERROR_NAMES: Readonly<Record<number, string>> = {
  [-115]: 'AUTH_FAILED',
  [-124]: 'SESSIONCLOSEDREQUIRESASLAUTH',
};

/**
 * Makes `client` authenticate every connection with SASL before it sends anything else. Must run
 * before `client.connect()` (the library binds its socket handlers when it connects).
 *
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 */
export function installSaslAuthentication(client: Client, options: ResolvedZooKeeperSaslOptions): void {
  checkWorkaround('sasl');
  const manager = connectionManagerOf(client);
  let server: { host: string; port: number } | undefined;
  let exchange: SaslExchange | undefined;
  let authenticated = false;

  const findNextServer = manager.findNextServer;
  manager.findNextServer = function (this: ConnectionManagerInternals, callback): void {
    findNextServer.call(this, (next) => {
      server = next;
      callback(next);
    });
  };

  // The gate: nothing from the queue goes out before the exchange succeeded, but for the
  // CLOSE_SESSION of a client being closed.
  const onPacketQueueReadable = manager.onPacketQueueReadable;
  manager.onPacketQueueReadable = function (this: ConnectionManagerInternals): void {
    if (!authenticated && this.state !== CONNECTION_STATES.CLOSING) return;
    onPacketQueueReadable.call(this);
  };
  manager.packetQueue.removeAllListeners('readable');
  manager.packetQueue.on('readable', () => manager.onPacketQueueReadable());

  const onSocketData = manager.onSocketData;
  manager.onSocketData = function (this: ConnectionManagerInternals, buffer: Buffer): void {
    if (exchange === undefined) onSocketData.call(this, buffer);
    else exchange.receive(buffer, (bytes) => onSocketData.call(this, bytes));
  };

  manager.on('state', (state) => {
    if (state === CONNECTION_STATES.CONNECTED || state === CONNECTION_STATES.CONNECTED_READ_ONLY) {
      if (authenticated || exchange !== undefined || server === undefined) return;
      const socket = manager.socket;
      if (socket === undefined) return;
      // A frame the library read past the handshake answer is this exchange's to read.
      const leftover = manager.pendingBuffer;
      manager.pendingBuffer = null;
      const current: SaslExchange = new SaslExchange(
        server,
        options,
        (frame) => socket.write(frame),
        () => manager.xid++,
        {
          succeeded: (rest) => {
            if (exchange !== current) return;
            exchange = undefined;
            authenticated = true;
            if (rest.length > 0) onSocketData.call(manager, rest);
            client.emit(SASL_AUTHENTICATED_EVENT);
            manager.onPacketQueueReadable();
          },
          failed: (error) => {
            if (exchange !== current) return;
            exchange = undefined;
            client.emit(SASL_FAILED_EVENT, error);
            failClient(manager);
          },
        },
      );
      exchange = current;
      if (leftover !== null) current.receive(leftover, (bytes) => onSocketData.call(manager, bytes));
      current.start();
      return;
    }
    // Any other state: this connection is gone or going, and so is its authentication.
    if (state !== CONNECTION_STATES.CLOSING) authenticated = false;
    exchange?.cancel();
    exchange = undefined;
  });
}

/** The Java client's end of a failed exchange: no reconnection, every request fails. */
function failClient(manager: ConnectionManagerInternals): void {
  manager.setState(CONNECTION_STATES.AUTHENTICATION_FAILED);
  const waiting = manager.packetQueue.queue.splice(0);
  const { Exception } = zookeeper as unknown as {
    Exception: { create(code: number): Error; AUTH_FAILED: number };
  };
  for (const packet of waiting) packet.callback?.(Exception.create(Exception.AUTH_FAILED));
  manager.socket?.destroy();
}

interface ExchangeEnd {
  /** `rest`: bytes read past the last answer, for the library. */
  succeeded(rest: Buffer): void;
  failed(error: ZooKeeperSaslError): void;
}

/** The SASL exchange of one connection. */
class SaslExchange {
  readonly #address: string;
  readonly #server: { host: string; port: number };
  readonly #options: ResolvedZooKeeperSaslOptions;
  readonly #write: (frame: Buffer) => void;
  readonly #nextXid: () => number;
  readonly #end: ExchangeEnd;
  #session: ZooKeeperSaslSession | undefined;
  #pending: Buffer = Buffer.alloc(0);
  #xid: number | undefined;
  /** The client side is complete: the next answer is the server's last (no token). */
  #awaitingLast = false;
  #done = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    server: { host: string; port: number },
    options: ResolvedZooKeeperSaslOptions,
    write: (frame: Buffer) => void,
    nextXid: () => number,
    end: ExchangeEnd,
  ) {
    this.#server = server;
    this.#address = `${server.host}:${server.port}`;
    this.#options = options;
    this.#write = write;
    this.#nextXid = nextXid;
    this.#end = end;
  }

  start(): void {
    this.#timer = setTimeout(
      () => this.#fail('timeout', `no end of the exchange within ${this.#options.timeoutMs} ms`),
      this.#options.timeoutMs,
    );
    void this.#begin();
  }

  /** Ends the exchange without a verdict (the connection went away). */
  cancel(): void {
    this.#finish();
  }

  /** Takes the socket's bytes: the answers to this exchange; anything else goes to `passOn`. */
  receive(bytes: Buffer, passOn: (bytes: Buffer) => void): void {
    if (this.#done) {
      passOn(bytes);
      return;
    }
    let split: ReturnType<typeof splitFrames>;
    try {
      split = splitFrames(this.#pending.length === 0 ? bytes : Buffer.concat([this.#pending, bytes]));
    } catch (error) {
      this.#fail('protocol', `an unreadable frame: ${(error as Error).message}`, error);
      return;
    }
    this.#pending = Buffer.from(split.rest);
    for (const body of split.frames) {
      if (this.#done || body.length < 16 || frameXid(body) !== this.#xid) {
        // Not an answer of this exchange (a notification, or bytes after its end).
        const length = Buffer.alloc(4);
        length.writeInt32BE(body.length, 0);
        passOn(Buffer.concat([length, body]));
        continue;
      }
      let reply: SaslReply;
      try {
        reply = decodeSaslReply(body);
      } catch (error) {
        this.#fail('protocol', `an unreadable answer: ${(error as Error).message}`, error);
        return;
      }
      this.#xid = undefined;
      void this.#answer(reply);
    }
  }

  async #begin(): Promise<void> {
    try {
      const principalHost = await serverPrincipalHost(this.#server.host, this.#options.canonicalizeHostName);
      if (this.#done) return;
      this.#session = await this.#options.mechanism.start({
        address: this.#address,
        host: this.#server.host,
        port: this.#server.port,
        service: this.#options.serviceName,
        principalHost,
      });
      if (this.#done) return;
      const first = await this.#session.initialResponse();
      if (this.#done) return;
      this.#send(first ?? new Uint8Array(0));
    } catch (error) {
      this.#fail('mechanism', (error as Error).message, error);
    }
  }

  async #answer(reply: SaslReply): Promise<void> {
    const session = this.#session;
    if (session === undefined) return;
    if (reply.err !== 0) {
      const name = ZK_ERROR_NAMES[reply.err] ?? 'error';
      this.#fail('refused', `the server refused the exchange: ${name} (${reply.err})`, undefined, reply.err);
      return;
    }
    if (this.#awaitingLast) {
      if (reply.token !== null && reply.token.length > 0) {
        this.#fail('protocol', 'the server sent a token after the client side had completed');
      } else {
        this.#succeed();
      }
      return;
    }
    let answer: Uint8Array | undefined;
    try {
      answer = await session.evaluateChallenge(reply.token ?? new Uint8Array(0));
    } catch (error) {
      this.#fail('mechanism', (error as Error).message, error);
      return;
    }
    if (this.#done) return;
    const complete = session.complete;
    if (answer !== undefined && (answer.length > 0 || !complete)) {
      this.#send(answer);
    } else if (complete) {
      this.#succeed();
    } else {
      this.#fail('protocol', 'the mechanism has nothing to send but is not complete');
    }
  }

  #send(token: Uint8Array): void {
    const xid = this.#nextXid();
    this.#xid = xid;
    this.#awaitingLast = this.#session?.complete === true;
    this.#write(encodeSaslRequest(xid, token));
  }

  #succeed(): void {
    const rest = this.#pending;
    this.#finish();
    this.#end.succeeded(rest);
  }

  #fail(reason: ZooKeeperSaslFailureReason, message: string, cause?: unknown, zkCode?: number): void {
    if (this.#done) return;
    this.#finish();
    this.#end.failed(
      new ZooKeeperSaslError(this.#address, reason, message, {
        ...(cause === undefined ? {} : { cause }),
        ...(zkCode === undefined ? {} : { zkCode }),
      }),
    );
  }

  #finish(): void {
    this.#done = true;
    this.#pending = Buffer.alloc(0);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
