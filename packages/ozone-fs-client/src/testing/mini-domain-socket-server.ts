// The short-circuit side of a mini datanode: a Unix domain socket (in the datanode's process)
// that answers GetBlock and Echo framed as Ozone's Receiver reads them, and passes the block
// file's descriptor with SCM_RIGHTS after a GetBlock that asked for short-circuit access.
import { closeSync, existsSync, lstatSync, openSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MiniClusterError } from '../ozone-errors.js';
import {
  DATA_TRANSFER_MAGIC_CODE,
  decodeFrame,
  encodeFrame,
  FrameError,
} from '../internal/short-circuit/domain-socket-frame.js';
import { loadUnixFd, socketFd, UnixFdCallError, type UnixFd } from '../internal/unix-fd/unix-fd.js';
import { dn, uint64, type hadoop } from '../internal/proto/wire.js';

/**
 * A fault the domain socket applies to the next short-circuit requests:
 * - `deny`: GetBlock answers `shortCircuitAccessGranted=false` and passes nothing;
 * - `garbage`: bytes that are not a frame; `hang-up`: close the connection without an answer;
 * - `wrong-call-id`: the answer carries another `callId`;
 * - `no-fd`: the magic byte comes without a descriptor;
 * - `unusable-fd`: the descriptor passed is the block file opened write-only (reads fail with EBADF).
 */
export interface ShortCircuitFault {
  /** What goes wrong (see above). */
  response: 'deny' | 'garbage' | 'hang-up' | 'wrong-call-id' | 'no-fd' | 'unusable-fd';
  /** How many requests it applies to. Default: all until cleared. */
  times?: number;
}

/** What the datanode answers a request with, and the block file to pass when access is granted. */
export interface DomainSocketAnswer {
  response: hadoop.hdds.datanode.IContainerCommandResponseProto;
  blockFile?: string;
}

export interface DomainSocketCounters {
  /** Requests received on the domain socket (GetBlock and Echo). */
  shortCircuitRequests: number;
  /** Block file descriptors passed with SCM_RIGHTS. */
  shortCircuitFdsPassed: number;
}

/** Most a peer may leave unanswered in the socket before it is dropped. */
const MAX_PENDING_BYTES = 1024 * 1024;
/** How long a full socket may keep an answer waiting. */
const SEND_TIMEOUT_MS = 10_000;

export class MiniDomainSocketServer {
  readonly path: string;
  readonly #server: Server;
  readonly #unixFd: UnixFd;
  readonly #connections = new Set<Socket>();
  readonly #answer: (request: hadoop.hdds.datanode.ContainerCommandRequestProto) => DomainSocketAnswer;
  readonly #counters: DomainSocketCounters;
  #faults: Array<ShortCircuitFault & { left: number }> = [];

  private constructor(
    path: string,
    server: Server,
    unixFd: UnixFd,
    answer: (request: hadoop.hdds.datanode.ContainerCommandRequestProto) => DomainSocketAnswer,
    counters: DomainSocketCounters,
  ) {
    this.path = path;
    this.#server = server;
    this.#unixFd = unixFd;
    this.#answer = answer;
    this.#counters = counters;
    server.on('connection', (socket) => this.#onConnection(socket));
  }

  /** Listens on `path` (a socket left there by a killed datanode is replaced; any other file is an error). */
  static async listen(
    path: string,
    answer: (request: hadoop.hdds.datanode.ContainerCommandRequestProto) => DomainSocketAnswer,
    counters: DomainSocketCounters,
  ): Promise<MiniDomainSocketServer> {
    const load = loadUnixFd();
    if (!load.available)
      throw new MiniClusterError(`cannot serve short-circuit reads on ${path}: ${load.reason}`);
    if (existsSync(path)) {
      if (!lstatSync(path).isSocket()) throw new MiniClusterError(`${path} exists and is not a socket`);
      unlinkSync(path);
    }
    const server = createServer({ pauseOnConnect: false });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new MiniDomainSocketServer(path, server, load.unixFd, answer, counters);
  }

  injectFault(fault: ShortCircuitFault): void {
    this.#faults.push({ ...fault, left: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clearFaults(): void {
    this.#faults = [];
  }

  /** Stops listening (the socket file is removed) and drops every connection. */
  close(): void {
    for (const c of this.#connections) c.destroy();
    this.#connections.clear();
    this.#server.close();
  }

  #onConnection(socket: Socket): void {
    this.#connections.add(socket);
    socket.on('close', () => this.#connections.delete(socket));
    socket.on('error', () => undefined);
    let pending: Buffer = Buffer.alloc(0);
    let queue: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      if (pending.length > MAX_PENDING_BYTES) {
        socket.destroy();
        return;
      }
      for (;;) {
        let frame;
        try {
          frame = decodeFrame(pending);
        } catch (err) {
          // Ozone's Receiver closes a connection that speaks another version or sends garbage.
          if (err instanceof FrameError) socket.destroy();
          return;
        }
        if (!frame) return;
        pending = pending.subarray(frame.frameBytes);
        const f = frame;
        queue = queue
          .then(() => this.#onFrame(socket, f.cmdType, f.message))
          .catch(() => {
            socket.destroy();
          });
      }
    });
  }

  async #onFrame(socket: Socket, cmdType: number, message: Buffer): Promise<void> {
    if (socket.destroyed) return;
    this.#counters.shortCircuitRequests++;
    const fault = this.#faults.find((f) => f.left > 0);
    if (fault) fault.left--;
    if (fault?.response === 'hang-up') {
      socket.destroy();
      return;
    }
    if (fault?.response === 'garbage') {
      await this.#sendAll(socket, Buffer.from([0xde, 0xad, 0xbe, 0xef, 0xff, 0xff]), []);
      return;
    }
    let request: hadoop.hdds.datanode.ContainerCommandRequestProto;
    try {
      request = dn.ContainerCommandRequestProto.decode(message);
    } catch {
      socket.destroy();
      return;
    }
    let answer: DomainSocketAnswer;
    if (Number(request.cmdType) !== cmdType) {
      answer = {
        response: {
          cmdType: request.cmdType,
          result: dn.Result.MALFORMED_REQUEST,
          message: `frame says ${cmdType}, request says ${request.cmdType}`,
        },
      };
    } else if (cmdType !== Number(dn.Type.GetBlock) && cmdType !== Number(dn.Type.Echo)) {
      answer = {
        response: {
          cmdType,
          result: dn.Result.UNSUPPORTED_REQUEST,
          message: 'only GetBlock and Echo are served on the domain socket',
        },
      };
    } else {
      answer = this.#answer(request);
    }
    const response = answer.response;
    if (request.clientId) response.clientId = request.clientId;
    if (request.callId != null) response.callId = request.callId;
    if (fault?.response === 'wrong-call-id') response.callId = uint64(0xfeed);
    const wantsFd = response.getBlock && request.getBlock?.requestShortCircuitAccess && answer.blockFile;
    if (response.getBlock)
      response.getBlock.shortCircuitAccessGranted = Boolean(wantsFd) && fault?.response !== 'deny';
    const bytes = encodeFrame(response.cmdType, dn.ContainerCommandResponseProto.encode(response).finish());
    await this.#sendAll(socket, bytes, []);
    if (!wantsFd || !answer.blockFile || fault?.response === 'deny') return;
    if (fault?.response === 'no-fd') {
      await this.#sendAll(socket, Buffer.from([DATA_TRANSFER_MAGIC_CODE]), []);
      return;
    }
    const fd = openSync(answer.blockFile, fault?.response === 'unusable-fd' ? 'a' : 'r');
    try {
      await this.#sendAll(socket, Buffer.from([DATA_TRANSFER_MAGIC_CODE]), [fd]);
      this.#counters.shortCircuitFdsPassed++;
    } finally {
      // The message in flight holds its own reference to the file.
      closeSync(fd);
    }
  }

  /**
   * Writes through the addon, never through the net.Socket, so that bytes and descriptors keep
   * their order. The socket is non-blocking: a full one is retried until SEND_TIMEOUT_MS.
   */
  async #sendAll(socket: Socket, data: Buffer, fds: number[]): Promise<void> {
    const deadline = Date.now() + SEND_TIMEOUT_MS;
    let rest = data;
    let attach = fds;
    while (rest.length > 0) {
      if (socket.destroyed) throw new Error('connection closed');
      try {
        const sent = this.#unixFd.send(socketFd(socket), rest, attach);
        rest = rest.subarray(sent);
        attach = [];
      } catch (err) {
        if (!(err instanceof UnixFdCallError && err.code === 'EAGAIN') || Date.now() > deadline) throw err;
        await sleep(1);
      }
    }
  }
}
