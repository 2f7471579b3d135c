// A datanode of the embedded mini cluster: the container commands of the read and write paths
// on the standalone gRPC `send` stream, blocks stored FILE_PER_BLOCK (one file per block, chunks
// at their block offsets) with their BlockData (and so the checksums the client sent) beside
// them, fault hooks, and counters of what it served.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerCredentials } from '@grpc/grpc-js';
import type { Server, ServerDuplexStream } from '@grpc/grpc-js';
import { MiniClusterError } from '../ozone-errors.js';
import { MiniBlockTokens } from './mini-block-tokens.js';
import { serveRawGrpc } from './serve-raw-grpc.js';
import { rawMethod } from '../internal/grpc/raw-bytes.js';
import { checksumTypeName, findChecksumMismatch } from '../internal/checksum.js';
import { DATANODE_SEND_PATH } from '../internal/grpc/datanode-channel.js';
import { dn, has, toBigInt, toNumber, uint64, type hadoop } from '../internal/proto/wire.js';
import {
  MiniDomainSocketServer,
  type DomainSocketAnswer,
  type ShortCircuitFault,
} from './mini-domain-socket-server.js';

/**
 * A name of the datanode protocol's `Result` enum (DatanodeClientProtocol.proto), e.g. `SUCCESS`,
 * `CONTAINER_NOT_FOUND`, `NO_SUCH_BLOCK`, `BCSID_MISMATCH`.
 */
export type ResultName = keyof typeof dn.Result;
/**
 * A name of the datanode protocol's command `Type` enum (DatanodeClientProtocol.proto), e.g.
 * `ReadChunk`, `GetBlock`, `WriteChunk`, `PutBlock`.
 */
export type CommandName = keyof typeof dn.Type;

/**
 * A fault a datanode applies to the next matching requests.
 * - `delayMs`: answer late; `result`: answer with this `Result` instead of serving;
 * - `response`: `never` (no answer at all), `end` (end the stream without an answer), `garbage`
 *   (bytes that are not a protobuf message), `truncated` (the real answer cut short),
 *   `short-data` (ReadChunk returns one byte less), `drop-checksum` (GetBlock lists one checksum
 *   less per chunk), `unknown-result` (a Result number the protocol does not define),
 *   `grpc-error` (a gRPC INTERNAL status), `stall` (ReadBlock sends its first piece, then nothing:
 *   the stream is held open).
 */
export interface DatanodeFault {
  /** The command it applies to. Default: every command. */
  command?: CommandName;
  /** How many requests it applies to. Default: all until cleared. */
  times?: number;
  /** Waits this many ms before the request is answered (or faulted by `result`, `response`). Default: 0. */
  delayMs?: number;
  /**
   * Answers with this `Result` (and message `injected <result>`) instead of serving the request;
   * applies to commands that come through a pipeline's Raft group too. Default: serve.
   */
  result?: ResultName;
  /** How the answer goes wrong (see above); on the standalone gRPC port only. Default: a correct answer. */
  response?:
    | 'never'
    | 'end'
    | 'garbage'
    | 'truncated'
    | 'short-data'
    | 'drop-checksum'
    | 'unknown-result'
    | 'grpc-error'
    | 'stall';
}

/** What a datanode served. */
export interface DatanodeCounters {
  /** Data bytes returned by ReadChunk. */
  bytesRead: number;
  /** Data bytes accepted by WriteChunk. */
  bytesWritten: number;
  /** Requests received, all commands. */
  requests: number;
  /** Requests received per command (gRPC). */
  byCommand: Record<string, number>;
  /** Data bytes sent in ReadBlock pieces. */
  bytesStreamed: number;
  /** ReadBlock pieces sent. */
  readBlockPieces: number;
  /**
   * ReadBlock requests whose offset was at or past the block's end: Ozone 2.2.0's datanode sends
   * nothing for them and the client waits out its deadline (HDDS-16207), and so does this one.
   */
  readBlockPastEnd: number;
  /** Requests received on the domain socket (short-circuit GetBlock and Echo). */
  shortCircuitRequests: number;
  /** Block file descriptors passed to clients with SCM_RIGHTS. */
  shortCircuitFdsPassed: number;
  /** Block commands refused for their block token (missing, forged, for another block, expired). */
  blockTokenRefusals: number;
  /** Ratis DataStream streams opened on this datanode (StreamInit). */
  streamsOpened: number;
  /** Block bytes written from Ratis DataStream packets (the end-of-stream trailer not counted). */
  bytesWrittenByStream: number;
}

/**
 * A block being written from a Ratis DataStream on one datanode: packets go to the block file as
 * they arrive; the stream's close strips the trailer (`PutBlock proto | its length as int32`)
 * off the file's end, as Ozone's KeyValueStreamDataChannel does.
 */
export interface MiniBlockStream {
  write(data: Buffer): Promise<void>;
  close(): Promise<void>;
  /** Removes the file of a stream that never closed (the client gave it up). */
  cleanUp(): void;
}

export interface MiniDatanodeOptions {
  dir: string;
  credentials: ServerCredentials;
  /**
   * Serve short-circuit reads on this Unix domain socket (`ozone.domain.socket.path`; `_PORT`
   * becomes the datanode's standalone port). Default: none.
   */
  domainSocketPath?: string;
  /** Require a valid block token on every block command (`hdds.block.token.enabled`). Default: none required. */
  blockTokens?: MiniBlockTokens;
}

const serviceDefinition = { send: rawMethod(DATANODE_SEND_PATH, true, true) };

/** A failure answered as a ContainerCommandResponseProto with a non-SUCCESS result. */
class DatanodeFailure extends Error {
  constructor(
    readonly result: ResultName,
    message: string,
  ) {
    super(message);
  }
}

/** How long a graceful stop waits for calls in flight before it cuts them. */
const STOP_GRACE_MS = 5_000;

/**
 * One datanode of a {@link MiniOzoneCluster}: its standalone gRPC port (and, when asked, a
 * short-circuit domain socket) in this process, its block files in its own directory, fault hooks
 * and counters. Get one from {@link MiniOzoneCluster.datanode}; the cluster starts and stops it.
 */
export class MiniDatanode {
  /** The datanode's UUID, made once and kept in `datanode.id` in its directory: a restart keeps it. */
  readonly uuid: string;
  readonly #dir: string;
  readonly #credentials: ServerCredentials;
  readonly #blockTokens: MiniBlockTokens | undefined;
  /** While set: the key this datanode checks tokens with instead of the OM's (see refuseBlockTokens). */
  #strangerKey: MiniBlockTokens | undefined;
  readonly #domainSocketTemplate: string | undefined;
  #server: Server | undefined;
  #domainSocket: MiniDomainSocketServer | undefined;
  #shortCircuitFaults: ShortCircuitFault[] = [];
  #port = 0;
  #faults: Array<DatanodeFault & { left: number }> = [];
  #paused: Array<() => void> | undefined;
  readonly #streams = new Set<ServerDuplexStream<Buffer, Buffer>>();
  /** The last 64 requests as they crossed the wire (for byte-level tests). */
  readonly received: Buffer[] = [];
  /**
   * What the datanode served since it was made or last reset ({@link MiniOzoneCluster.resetCounters}),
   * updated live; restarts do not reset it.
   */
  readonly counters: DatanodeCounters = {
    bytesRead: 0,
    bytesWritten: 0,
    bytesStreamed: 0,
    readBlockPieces: 0,
    readBlockPastEnd: 0,
    requests: 0,
    byCommand: {},
    shortCircuitRequests: 0,
    shortCircuitFdsPassed: 0,
    blockTokenRefusals: 0,
    streamsOpened: 0,
    bytesWrittenByStream: 0,
  };

  constructor(options: MiniDatanodeOptions) {
    this.#blockTokens = options.blockTokens;
    this.#dir = options.dir;
    this.#credentials = options.credentials;
    this.#domainSocketTemplate = options.domainSocketPath;
    mkdirSync(this.#dir, { recursive: true });
    const idFile = join(this.#dir, 'datanode.id');
    if (existsSync(idFile)) this.uuid = readFileSync(idFile, 'utf8').trim();
    else {
      this.uuid = randomUUID();
      writeFileSync(idFile, this.uuid);
    }
  }

  /** The standalone gRPC port (Ozone's STANDALONE port); 0 before the first start, kept across a stop. */
  get port(): number {
    return this.#port;
  }

  /** `127.0.0.1:<port>` of the standalone gRPC port, as the OM lists it in pipelines. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /**
   * Whether its gRPC server serves (false after a stop or kill, true again after a restart; a
   * pause does not change it). Committed Raft commands are applied only to running members.
   */
  get running(): boolean {
    return this.#server !== undefined;
  }

  /** Starts serving on `port` (0: a free one; a restart passes the old one so pipelines stay valid). */
  async start(port = this.#port): Promise<void> {
    if (this.#server) return;
    const { server, port: bound } = await serveRawGrpc(
      serviceDefinition,
      { send: (call: ServerDuplexStream<Buffer, Buffer>) => this.#onStream(call) },
      port,
      this.#credentials,
    );
    this.#port = bound;
    this.#server = server;
    if (this.#domainSocketTemplate !== undefined) {
      try {
        this.#domainSocket = await MiniDomainSocketServer.listen(
          this.#domainSocketTemplate.replaceAll('_PORT', String(this.#port)),
          (request) => this.#answerDomainSocket(request),
          this.counters,
        );
        for (const f of this.#shortCircuitFaults) this.#domainSocket.injectFault(f);
      } catch (err) {
        this.#server = undefined;
        server.forceShutdown();
        throw err;
      }
    }
  }

  /** The domain socket this datanode serves short-circuit reads on, while it runs. */
  get domainSocketPath(): string | undefined {
    return this.#domainSocket?.path;
  }

  /**
   * Stops gracefully: new calls are refused, calls in flight get 5 s (`STOP_GRACE_MS`) to finish,
   * then whatever is still open is cut. A client's long-lived streams could otherwise hold a
   * graceful stop open for as long as the client keeps them.
   */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#closeDomainSocket();
    this.resume();
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, STOP_GRACE_MS);
      server.tryShutdown(() => {
        clearTimeout(cut);
        resolve();
      });
    });
  }

  /** Stops at once, cutting every open stream (a crashed datanode). */
  kill(): void {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#closeDomainSocket();
    this.resume();
    server.forceShutdown();
  }

  /** Holds every request (new and in flight) until {@link resume}: a datanode that stopped answering. */
  pause(): void {
    this.#paused ??= [];
  }

  /** Requests held by {@link pause} right now: how many a client has in flight at once. */
  get heldRequests(): number {
    return this.#paused?.length ?? 0;
  }

  /** Releases every request {@link MiniDatanode.pause} held; does nothing when not paused. */
  resume(): void {
    const waiting = this.#paused;
    this.#paused = undefined;
    for (const w of waiting ?? []) w();
  }

  #closeDomainSocket(): void {
    this.#domainSocket?.close();
    this.#domainSocket = undefined;
  }

  /**
   * Makes the datanode refuse every block token (`true`) or check them again with the OM's key
   * (`false`), as a datanode that does not hold the secret key its tokens are signed with: it
   * checks each token with a key of its own, so the password never matches. Needs `blockTokens`.
   */
  refuseBlockTokens(refuse: boolean): void {
    if (this.#blockTokens === undefined)
      throw new MiniClusterError('the cluster checks no block tokens (start it with security.blockTokens)');
    this.#strangerKey = refuse ? new MiniBlockTokens() : undefined;
  }

  /** Applies a fault to the next short-circuit requests on the domain socket (kept across restarts until cleared). */
  injectShortCircuitFault(fault: ShortCircuitFault): void {
    this.#shortCircuitFaults.push(fault);
    this.#domainSocket?.injectFault(fault);
  }

  /**
   * Adds a fault for the next matching requests (kept across restarts until cleared). With several
   * faults a request gets the first added one that matches it and has `times` left.
   */
  injectFault(fault: DatanodeFault): void {
    this.#faults.push({ ...fault, left: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every fault, gRPC and short-circuit; requests already held by a `never` fault stay held. */
  clearFaults(): void {
    this.#faults = [];
    this.#shortCircuitFaults = [];
    this.#domainSocket?.clearFaults();
  }

  #blockFile(containerId: bigint, localId: bigint): string {
    return join(this.#dir, 'containers', String(containerId), 'chunks', `${localId}.block`);
  }

  #metaFile(containerId: bigint, localId: bigint): string {
    return join(this.#dir, 'containers', String(containerId), 'metadata', `${localId}.blockdata`);
  }

  /** Flips the bits of `length` bytes of a block file at `offsetInBlock` (a replica gone bad on disk). */
  async corruptBlock(containerId: bigint, localId: bigint, offsetInBlock: number, length = 1): Promise<void> {
    const fh = await open(this.#blockFile(containerId, localId), 'r+');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offsetInBlock);
      if (bytesRead !== length)
        throw new MiniClusterError(
          `block ${containerId}/${localId} has no ${length} bytes at ${offsetInBlock}`,
        );
      for (let i = 0; i < length; i++) buf[i] = (buf[i] as number) ^ 0xff;
      await fh.write(buf, 0, length, offsetInBlock);
    } finally {
      await fh.close();
    }
  }

  #onStream(call: ServerDuplexStream<Buffer, Buffer>): void {
    this.#streams.add(call);
    let pending = Promise.resolve();
    let ended = false;
    // Ozone's datanode serves a stream's requests one after another, each answered before the
    // next is read: a request that never gets an answer holds every later one on the stream, and
    // once the stream failed or ended the requests still on it are never served.
    let stopped = false;
    const state: StreamState = { readBlockFile: undefined };
    call.on('data', (raw: Buffer) => {
      pending = pending
        .then(async () => {
          if (stopped) return;
          if ((await this.#onRequest(call, raw, state)) === 'stop') stopped = true;
        })
        .catch(() => undefined);
    });
    call.on('end', () => {
      ended = true;
      void pending.then(() => {
        if (!call.cancelled && !call.destroyed && !(call as { __fastpathHeld?: boolean }).__fastpathHeld)
          call.end();
      });
    });
    call.on('error', () => undefined);
    call.on('close', () => this.#streams.delete(call));
    void ended;
  }

  /** Serves one request of a stream; 'stop' when the stream serves no more (held, ended or failed). */
  async #onRequest(
    call: ServerDuplexStream<Buffer, Buffer>,
    raw: Buffer,
    state: StreamState,
  ): Promise<'stop' | undefined> {
    this.received.push(Buffer.from(raw));
    if (this.received.length > 64) this.received.shift();
    if (this.#paused) await new Promise<void>((resolve) => this.#paused?.push(resolve));
    let request: hadoop.hdds.datanode.ContainerCommandRequestProto;
    try {
      request = dn.ContainerCommandRequestProto.decode(raw);
    } catch (err) {
      call.emit('error', { code: 13, details: `malformed request: ${(err as Error).message}` });
      return 'stop';
    }
    if (dn.Type[request.cmdType] === undefined) {
      // Java's parser keeps an enum number it does not know as an unknown field, and then finds
      // the required cmdType missing: the request cannot be parsed and the stream fails.
      call.emit('error', { code: 13, details: `malformed request: unknown cmdType ${request.cmdType}` });
      return 'stop';
    }
    const fault = await this.#admit(request);
    if (fault?.response === 'never') {
      (call as { __fastpathHeld?: boolean }).__fastpathHeld = true;
      return 'stop';
    }
    if (fault?.response === 'end') {
      call.end();
      return 'stop';
    }
    if (fault?.response === 'grpc-error') {
      call.emit('error', { code: 13, details: 'injected gRPC failure' });
      return 'stop';
    }
    if (fault?.response === 'garbage') {
      call.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x07]));
      return undefined;
    }
    if (request.cmdType === dn.Type.ReadBlock && !fault?.result && fault?.response !== 'unknown-result') {
      // A stream of pieces, or one error response; the stream stays open either way.
      try {
        return await this.#readBlock(call, request, state, fault);
      } catch (err) {
        if (!(err instanceof DatanodeFailure)) throw err;
        call.write(
          Buffer.from(
            dn.ContainerCommandResponseProto.encode({
              cmdType: request.cmdType,
              result: dn.Result[err.result],
              message: err.message,
            }).finish(),
          ),
        );
        return undefined;
      }
    }
    let response: hadoop.hdds.datanode.IContainerCommandResponseProto;
    if (fault?.result) {
      response = {
        cmdType: request.cmdType,
        result: dn.Result[fault.result],
        message: `injected ${fault.result}`,
      };
    } else if (fault?.response === 'unknown-result') {
      response = { cmdType: request.cmdType, result: 999 as hadoop.hdds.datanode.Result };
    } else {
      try {
        response = {
          cmdType: request.cmdType,
          result: dn.Result.SUCCESS,
          ...(await this.#serve(request, fault)),
        };
      } catch (err) {
        if (!(err instanceof DatanodeFailure)) throw err;
        response = { cmdType: request.cmdType, result: dn.Result[err.result], message: err.message };
      }
    }
    if (request.callId != null && has(request, 'callId')) response.callId = request.callId;
    const bytes = Buffer.from(dn.ContainerCommandResponseProto.encode(response).finish());
    call.write(fault?.response === 'truncated' ? bytes.subarray(0, Math.max(1, bytes.length >> 1)) : bytes);
    return undefined;
  }

  /** Counts a request, takes the fault that applies to it (if any) and waits out its delay. */
  async #admit(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
  ): Promise<(DatanodeFault & { left: number }) | undefined> {
    const command = dn.Type[request.cmdType] ?? String(request.cmdType);
    this.counters.requests++;
    this.counters.byCommand[command] = (this.counters.byCommand[command] ?? 0) + 1;
    const fault = this.#faults.find((f) => f.left > 0 && (f.command === undefined || f.command === command));
    if (fault) fault.left--;
    if (fault?.delayMs) await sleep(fault.delayMs);
    return fault;
  }

  /**
   * @internal Applies a container command its pipeline's Raft group committed (the Ratis write
   * path): counted and subject to `result` and `delayMs` faults as a standalone request is.
   */
  async applyCommitted(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
  ): Promise<hadoop.hdds.datanode.IContainerCommandResponseProto> {
    const fault = await this.#admit(request);
    if (fault?.result)
      return {
        cmdType: request.cmdType,
        result: dn.Result[fault.result],
        message: `injected ${fault.result}`,
      };
    try {
      // Decoded from the Ratis message by the group's state machine: the fields #serve reads are there.
      const decoded = request as hadoop.hdds.datanode.ContainerCommandRequestProto;
      return { cmdType: request.cmdType, result: dn.Result.SUCCESS, ...(await this.#serve(decoded, fault)) };
    } catch (err) {
      if (!(err instanceof DatanodeFailure)) throw err;
      return { cmdType: request.cmdType, result: dn.Result[err.result], message: err.message };
    }
  }

  /**
   * @internal Opens the block file a Ratis DataStream header (StreamInit) names, checking its
   * block token for WRITE as a datanode's dispatcher does; throws a DatanodeFailure-derived Error
   * the stream's reply carries.
   */
  openBlockStream(request: hadoop.hdds.datanode.IContainerCommandRequestProto): MiniBlockStream {
    const decoded = request as hadoop.hdds.datanode.ContainerCommandRequestProto;
    if (decoded.cmdType !== dn.Type.StreamInit || !decoded.writeChunk?.blockID)
      throw new DatanodeFailure(
        'MALFORMED_REQUEST',
        'a stream header that is not a StreamInit with a block id',
      );
    // A StreamInit names its block in a WriteChunk: the token is checked as a write's.
    this.#checkBlockToken({ ...decoded, cmdType: dn.Type.WriteChunk });
    this.counters.streamsOpened++;
    const containerId = toBigInt(decoded.writeChunk.blockID.containerID);
    const localId = toBigInt(decoded.writeChunk.blockID.localID);
    const file = this.#blockFile(containerId, localId);
    mkdirSync(join(file, '..'), { recursive: true });
    let offset = 0;
    let closed = false;
    const counters = this.counters;
    // Each packet is admitted as a StreamWrite: a fault on that command delays or fails it.
    const admit = () =>
      this.#admit({
        cmdType: dn.Type.StreamWrite,
        containerID: decoded.containerID,
        datanodeUuid: this.uuid,
      });
    return {
      async write(data: Buffer): Promise<void> {
        const fault = await admit();
        if (fault?.result) throw new DatanodeFailure(fault.result, `injected ${fault.result}`);
        const fh = await open(file, existsSync(file) ? 'r+' : 'w+');
        try {
          await fh.write(data, 0, data.length, offset);
        } finally {
          await fh.close();
        }
        offset += data.length;
        counters.bytesWrittenByStream += data.length;
      },
      async close(): Promise<void> {
        const fh = await open(file, 'r+');
        try {
          const trailer = Buffer.alloc(4);
          if (offset < 4 || (await fh.read(trailer, 0, 4, offset - 4)).bytesRead !== 4)
            throw new DatanodeFailure('MALFORMED_REQUEST', 'a stream closed without its length trailer');
          const protoBytes = trailer.readInt32BE(0);
          if (protoBytes < 0 || protoBytes > offset - 4)
            throw new DatanodeFailure(
              'MALFORMED_REQUEST',
              `a stream trailer of ${protoBytes} bytes past its start`,
            );
          const end = offset - 4 - protoBytes;
          await fh.truncate(end);
          counters.bytesWrittenByStream -= offset - end;
          closed = true;
        } finally {
          await fh.close();
        }
      },
      cleanUp(): void {
        if (!closed && existsSync(file)) rmSync(file);
      },
    };
  }

  /** A request that came over the domain socket: GetBlock (with the block file to pass) or Echo. */
  #answerDomainSocket(request: hadoop.hdds.datanode.ContainerCommandRequestProto): DomainSocketAnswer {
    try {
      if (request.datanodeUuid !== this.uuid)
        throw new DatanodeFailure(
          'INVALID_ARGUMENT',
          `request for datanode ${request.datanodeUuid} reached ${this.uuid}`,
        );
      if (request.cmdType === dn.Type.Echo)
        return {
          response: {
            cmdType: request.cmdType,
            result: dn.Result.SUCCESS,
            echo: { payload: Buffer.alloc(request.echo?.payloadSizeResp ?? 0) },
          },
        };
      const g = need(request.getBlock);
      this.#checkBlockToken(request);
      const blockData = this.#blockData(g.blockID);
      const file = this.#blockFile(toBigInt(g.blockID.containerID), toBigInt(g.blockID.localID));
      return {
        response: { cmdType: request.cmdType, result: dn.Result.SUCCESS, getBlock: { blockData } },
        ...(existsSync(file) ? { blockFile: file } : {}),
      };
    } catch (err) {
      if (!(err instanceof DatanodeFailure)) throw err;
      return { response: { cmdType: request.cmdType, result: dn.Result[err.result], message: err.message } };
    }
  }

  /** With block tokens on, a block command without a valid token for its block and mode is refused (as Ozone's TokenVerifier). */
  #checkBlockToken(r: hadoop.hdds.datanode.ContainerCommandRequestProto): void {
    if (this.#blockTokens === undefined) return;
    const tokens = this.#strangerKey ?? this.#blockTokens;
    const write = r.cmdType === dn.Type.WriteChunk || r.cmdType === dn.Type.PutBlock;
    const id =
      r.writeChunk?.blockID ??
      r.putBlock?.blockData?.blockID ??
      r.getBlock?.blockID ??
      r.readChunk?.blockID ??
      r.readBlock?.blockID;
    if (id === undefined || id === null) return;
    const refusal = tokens.refusal(
      has(r, 'encodedToken') ? r.encodedToken : '',
      toBigInt(id.containerID),
      toBigInt(id.localID),
      write ? 'WRITE' : 'READ',
    );
    if (refusal !== undefined) {
      this.counters.blockTokenRefusals++;
      throw new DatanodeFailure('BLOCK_TOKEN_VERIFICATION_FAILED', refusal);
    }
  }

  async #serve(
    r: hadoop.hdds.datanode.ContainerCommandRequestProto,
    fault: DatanodeFault | undefined,
  ): Promise<Partial<hadoop.hdds.datanode.IContainerCommandResponseProto>> {
    if (r.datanodeUuid !== this.uuid)
      throw new DatanodeFailure(
        'INVALID_ARGUMENT',
        `request for datanode ${r.datanodeUuid} reached ${this.uuid}`,
      );
    this.#checkReplicaIndex(r);
    this.#checkBlockToken(r);
    switch (r.cmdType) {
      case dn.Type.WriteChunk:
        return this.#writeChunk(need(r.writeChunk));
      case dn.Type.PutBlock:
        return this.#putBlock(need(r.putBlock));
      case dn.Type.GetBlock:
        return this.#getBlock(need(r.getBlock), fault);
      case dn.Type.ReadChunk:
        return this.#readChunk(need(r.readChunk), fault);
      case dn.Type.Echo: {
        const e = r.echo;
        const size = e?.payloadSizeResp ?? 0;
        return { echo: { payload: Buffer.alloc(size) } };
      }
      default:
        throw new DatanodeFailure(
          'UNSUPPORTED_REQUEST',
          `the mini cluster's datanode does not serve ${dn.Type[r.cmdType] ?? r.cmdType}`,
        );
    }
  }

  async #writeChunk(
    w: hadoop.hdds.datanode.IWriteChunkRequestProto,
  ): Promise<Partial<hadoop.hdds.datanode.IContainerCommandResponseProto>> {
    const chunk = w.chunkData;
    const data = w.data;
    if (!chunk || !data)
      throw new DatanodeFailure('MALFORMED_REQUEST', 'WriteChunk without chunkData or data');
    if (toNumber(chunk.len) !== data.length)
      throw new DatanodeFailure(
        'INVALID_WRITE_SIZE',
        `chunk len ${toNumber(chunk.len)} but ${data.length} bytes`,
      );
    const type = checksumTypeName(chunk.checksumData.type);
    if (!type) throw new DatanodeFailure('NO_SUCH_ALGORITHM', `checksum type ${chunk.checksumData.type}`);
    const bad = findChecksumMismatch(
      type,
      chunk.checksumData.bytesPerChecksum,
      chunk.checksumData.checksums ?? [],
      data,
      0,
    );
    if (
      bad ||
      (type !== 'NONE' &&
        (chunk.checksumData.checksums ?? []).length !==
          Math.ceil(data.length / chunk.checksumData.bytesPerChecksum))
    ) {
      throw new DatanodeFailure(
        'CHECKSUM_MISMATCH',
        `WriteChunk ${chunk.chunkName}: ${bad?.detail ?? 'checksum count does not fit the data'}`,
      );
    }
    const containerId = toBigInt(w.blockID.containerID);
    const localId = toBigInt(w.blockID.localID);
    const file = this.#blockFile(containerId, localId);
    mkdirSync(join(file, '..'), { recursive: true });
    const fh = await open(file, existsSync(file) ? 'r+' : 'w+');
    try {
      // No fsync: the cluster's data must survive a process restart, not a power cut.
      await fh.write(data, 0, data.length, toNumber(chunk.offset));
    } finally {
      await fh.close();
    }
    this.counters.bytesWritten += data.length;
    return { writeChunk: {} };
  }

  #putBlock(
    p: hadoop.hdds.datanode.IPutBlockRequestProto,
  ): Partial<hadoop.hdds.datanode.IContainerCommandResponseProto> {
    const blockId = p.blockData.blockID;
    const containerId = toBigInt(blockId.containerID);
    const localId = toBigInt(blockId.localID);
    if (!existsSync(this.#blockFile(containerId, localId)) && (p.blockData.chunks ?? []).length > 0) {
      throw new DatanodeFailure(
        'UNABLE_TO_FIND_CHUNK',
        `PutBlock ${containerId}/${localId} before its chunks`,
      );
    }
    const meta = this.#metaFile(containerId, localId);
    mkdirSync(join(meta, '..'), { recursive: true });
    writeFileSync(`${meta}.tmp`, dn.BlockData.encode(p.blockData).finish());
    renameSync(`${meta}.tmp`, meta);
    const length = (p.blockData.chunks ?? []).reduce((n, c) => n + toNumber(c.len), 0);
    return { putBlock: { committedBlockLength: { blockID: blockId, blockLength: uint64(length) } } };
  }

  /**
   * An EC replica's container carries its replica index, set by the first write (WriteChunk or
   * PutBlock) that names one, as Ozone's HddsDispatcher creates a missing container with the
   * command's `blockID.replicaIndex`: a replica that holds no cell of a short key gets only its
   * PutBlock. A command naming another index answers CONTAINER_NOT_FOUND when both are non-zero,
   * as Ozone's BlockUtils.verifyReplicaIdx decides.
   */
  #checkReplicaIndex(r: hadoop.hdds.datanode.ContainerCommandRequestProto): void {
    const id =
      r.writeChunk?.blockID ??
      r.putBlock?.blockData.blockID ??
      r.getBlock?.blockID ??
      r.readChunk?.blockID ??
      r.readBlock?.blockID;
    const asked = id?.replicaIndex ?? 0;
    if (!id || asked === 0) return;
    const containerId = toBigInt(id.containerID);
    const file = join(this.#dir, 'containers', String(containerId), 'replica-index');
    if (!existsSync(file)) {
      if (r.cmdType !== dn.Type.WriteChunk && r.cmdType !== dn.Type.PutBlock) return;
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, String(asked));
      return;
    }
    const held = Number(readFileSync(file, 'utf8'));
    if (held !== 0 && held !== asked)
      throw new DatanodeFailure(
        'CONTAINER_NOT_FOUND',
        `Unable to find the container ${containerId} with replica index ${asked}: it holds replica index ${held}`,
      );
  }

  #blockData(id: hadoop.hdds.datanode.IDatanodeBlockID): hadoop.hdds.datanode.BlockData {
    const meta = this.#metaFile(toBigInt(id.containerID), toBigInt(id.localID));
    if (!existsSync(meta))
      throw new DatanodeFailure(
        'NO_SUCH_BLOCK',
        `Unable to find the block ${toBigInt(id.containerID)}/${toBigInt(id.localID)}`,
      );
    return dn.BlockData.decode(readFileSync(meta));
  }

  #getBlock(
    g: hadoop.hdds.datanode.IGetBlockRequestProto,
    fault: DatanodeFault | undefined,
  ): Partial<hadoop.hdds.datanode.IContainerCommandResponseProto> {
    const data = this.#blockData(g.blockID);
    if (fault?.response === 'drop-checksum') {
      for (const c of data.chunks) c.checksumData.checksums = (c.checksumData.checksums ?? []).slice(1);
    }
    return { getBlock: { blockData: data } };
  }

  async #readChunk(
    q: hadoop.hdds.datanode.IReadChunkRequestProto,
    fault: DatanodeFault | undefined,
  ): Promise<Partial<hadoop.hdds.datanode.IContainerCommandResponseProto>> {
    const containerId = toBigInt(q.blockID.containerID);
    const localId = toBigInt(q.blockID.localID);
    const blockData = this.#blockData(q.blockID);
    const offset = toNumber(q.chunkData.offset);
    const len = toNumber(q.chunkData.len);
    const owner = blockData.chunks.find(
      (c) => offset >= toNumber(c.offset) && offset + len <= toNumber(c.offset) + toNumber(c.len),
    );
    if (!owner)
      throw new DatanodeFailure(
        'UNABLE_TO_FIND_CHUNK',
        `no chunk of ${containerId}/${localId} holds ${offset}+${len}`,
      );
    const fh = await open(this.#blockFile(containerId, localId), 'r');
    let data: Buffer;
    try {
      data = Buffer.alloc(len);
      const { bytesRead } = await fh.read(data, 0, len, offset);
      if (bytesRead !== len)
        throw new DatanodeFailure('IO_EXCEPTION', `short block file: ${bytesRead} of ${len} bytes`);
    } finally {
      await fh.close();
    }
    if (fault?.response === 'short-data') data = data.subarray(0, Math.max(0, len - 1));
    this.counters.bytesRead += data.length;
    const chunkData = { ...q.chunkData };
    if (q.readChunkVersion === dn.ReadChunkVersion.V1) {
      // Buffers of bytesPerChecksum each (1 MB when the chunk has no checksums), as the datanode's ChunkManager cuts them.
      const type = checksumTypeName(owner.checksumData.type);
      const capacity =
        type === 'NONE' || owner.checksumData.bytesPerChecksum <= 0
          ? 1024 * 1024
          : owner.checksumData.bytesPerChecksum;
      const buffers: Buffer[] = [];
      for (let o = 0; o < data.length; o += capacity)
        buffers.push(data.subarray(o, Math.min(o + capacity, data.length)));
      return { readChunk: { blockID: q.blockID, chunkData, dataBuffers: { buffers } } };
    }
    return { readChunk: { blockID: q.blockID, chunkData, data } };
  }

  /**
   * ReadBlock as Ozone 2.2.0's KeyValueHandler#readBlockImpl serves it: the offset moved back to a
   * checksum window, `required` = min(roundUp(length + that shift, bpc), block size − aligned
   * offset), then pieces of exactly `responseDataSize` bytes (0 means 1 MiB) read from the file until
   * `required` bytes are sent, short only at the file's end, each with the stored checksums of its
   * windows picked as getChecksums picks them (chunk = offset / first chunk's length). An offset at
   * or past the block's end leaves `required` ≤ 0: nothing is sent, not even an error (HDDS-16207).
   * A failure of getChecksums' assumptions (uneven chunks, HDDS-15857) after some pieces went is
   * one error response after them, CONTAINER_INTERNAL_ERROR, as Java's assertion failures become.
   */
  async #readBlock(
    call: ServerDuplexStream<Buffer, Buffer>,
    request: hadoop.hdds.datanode.ContainerCommandRequestProto,
    state: StreamState,
    fault: DatanodeFault | undefined,
  ): Promise<'stop' | undefined> {
    if (request.datanodeUuid !== this.uuid)
      throw new DatanodeFailure(
        'INVALID_ARGUMENT',
        `request for datanode ${request.datanodeUuid} reached ${this.uuid}`,
      );
    const q = request.readBlock;
    if (!q) throw new DatanodeFailure('MALFORMED_REQUEST', 'the request body for its cmdType is missing');
    this.#checkBlockToken(request);
    this.#checkReplicaIndex(request);
    const containerId = toBigInt(q.blockID.containerID);
    const localId = toBigInt(q.blockID.localID);
    state.readBlockFile ??= this.#blockFile(containerId, localId);
    const blockData = this.#blockData(q.blockID);
    const chunks = blockData.chunks;
    const blockSize = chunks.reduce((n, c) => n + toNumber(c.len), 0);
    const first = chunks[0];
    if (!first)
      throw new DatanodeFailure('CONTAINER_INTERNAL_ERROR', `block ${containerId}/${localId} has no chunks`);
    const responseDataSize = q.responseDataSize || 1024 * 1024;
    const bytesPerChunk = toNumber(first.len);
    const type = first.checksumData.type;
    const none = type === dn.ChecksumType.NONE;
    const bpc = none ? STREAMING_BYTES_PER_CHUNK : first.checksumData.bytesPerChecksum;
    const offset = toNumber(q.offset);
    const length = toNumber(q.length ?? 0);
    let at = offset - (offset % bpc);
    const rounded = Math.ceil((length + (offset % bpc)) / bpc) * bpc;
    const required = Math.min(rounded, blockSize - at);
    if (required <= 0) this.counters.readBlockPastEnd++;
    const fh = await open(state.readBlockFile, 'r');
    try {
      for (let sent = 0; sent < required;) {
        if (call.cancelled || call.destroyed) return 'stop';
        const buffer = Buffer.alloc(responseDataSize);
        let filled = 0;
        while (filled < responseDataSize) {
          const { bytesRead } = await fh.read(buffer, filled, responseDataSize - filled, at + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled === 0) break;
        const data = buffer.subarray(0, filled);
        const checksumData: hadoop.hdds.datanode.IChecksumData = none
          ? { type, bytesPerChecksum: 0 }
          : {
              type,
              bytesPerChecksum: bpc,
              checksums: pieceChecksums(at, filled, bytesPerChunk, bpc, chunks),
            };
        call.write(
          Buffer.from(
            dn.ContainerCommandResponseProto.encode({
              cmdType: request.cmdType,
              result: dn.Result.SUCCESS,
              readBlock: { checksumData, offset: uint64(at), data },
            }).finish(),
          ),
        );
        this.counters.readBlockPieces++;
        this.counters.bytesStreamed += filled;
        at += filled;
        sent += filled;
        if (fault?.response === 'stall') {
          (call as { __fastpathHeld?: boolean }).__fastpathHeld = true;
          return 'stop';
        }
      }
    } finally {
      await fh.close();
    }
    return undefined;
  }
}

/**
 * The stored checksums of a piece's windows, picked as Ozone 2.2.0's KeyValueHandler#getChecksums
 * picks them, with its assertions: chunk = window offset / the first chunk's length, every chunk
 * but the last as long as the first, and every chunk with the first one's bytes per checksum.
 */
function pieceChecksums(
  blockOffset: number,
  readLength: number,
  bytesPerChunk: number,
  bpc: number,
  chunks: readonly hadoop.hdds.datanode.IChunkInfo[],
): Uint8Array[] {
  const fail = (what: string): never => {
    throw new DatanodeFailure('CONTAINER_INTERNAL_ERROR', `Failed to readBlock: ${what}`);
  };
  if (blockOffset % bpc !== 0) fail(`blockOffset % bytesPerChecksum = ${blockOffset % bpc}`);
  const out: Uint8Array[] = [];
  const windows = 1 + Math.floor((readLength - 1) / bpc);
  for (let i = 0; i < windows; i++) {
    const offset = blockOffset + i * bpc;
    const c = Math.floor(offset / bytesPerChunk);
    const csi = Math.floor((offset % bytesPerChunk) / bpc);
    const chunk = chunks[c];
    if (!chunk) return fail(`chunkIndex = ${c} >= chunk.size()${chunks.length}`);
    if (c < chunks.length - 1 && toNumber(chunk.len) !== bytesPerChunk)
      fail(`bytesPerChunk: expected ${bytesPerChunk}, got ${toNumber(chunk.len)}`);
    if (chunk.checksumData.bytesPerChecksum !== bpc)
      fail(`bytesPerChecksum: expected ${bpc}, got ${chunk.checksumData.bytesPerChecksum}`);
    const list = chunk.checksumData.checksums ?? [];
    const sum = list[csi];
    if (!sum) return fail(`checksumIndex = ${csi} >= checksumsList.size()${list.length}`);
    out.push(sum);
  }
  return out;
}

/** What one `send` stream holds between its requests. */
interface StreamState {
  /**
   * The block file the stream's first ReadBlock opened. Ozone 2.2.0's datanode keeps one handle per
   * stream and reads every later ReadBlock of the stream from it, whatever block it names: one
   * stream serves one block.
   */
  readBlockFile: string | undefined;
}

/** The bytes per checksum a block without checksums is streamed in (KeyValueHandler's STREAMING_BYTES_PER_CHUNK). */
const STREAMING_BYTES_PER_CHUNK = 64 * 1024;

function need<T>(body: T | null | undefined): T {
  if (body == null)
    throw new DatanodeFailure('MALFORMED_REQUEST', 'the request body for its cmdType is missing');
  return body;
}
