import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import { spawnLineProtocolJvm, type JvmAnswer } from './internal/line-protocol-jvm.js';
import type { AppendLogWriteReply } from './append-log-messages.js';
import {
  RatisFixtureStateError,
  RatisFixtureTimeoutError,
  RatisPeerCommandError,
} from './ratis-fixture-errors.js';
import type { RatisGroup } from './ratis-group.js';
import { prepareRatisJars } from './ratis-jars.js';

/** Options of {@link startRatisJavaClient}; every field has a default. */
export interface RatisJavaClientOptions {
  /** Java heap of the client's JVM, MiB. */
  heapMb?: number;
  /** The client's bound of outstanding asynchronous requests (`raft.client.async.outstanding-requests.max`). */
  outstandingRequests?: number;
  /** Bound of the JVM's start, ms. */
  startTimeoutMs?: number;
  /** Bound of one `write` or `query`, ms (Ratis's client retries through elections meanwhile). */
  callTimeoutMs?: number;
  /** Bound of one `load`, ms. */
  loadTimeoutMs?: number;
}

export const DEFAULT_RATIS_JAVA_CLIENT_OPTIONS: Readonly<Required<RatisJavaClientOptions>> = Object.freeze({
  heapMb: 256,
  outstandingRequests: 32,
  startTimeoutMs: 120_000,
  callTimeoutMs: 120_000,
  loadTimeoutMs: 900_000,
});

/** A load of pipelined writes through `RaftClient.async()`. */
export interface RatisJavaLoad {
  /** Bytes of each write (random, the same for every write of the load). */
  sizeBytes: number;
  writes: number;
  /** Writes outstanding at most. */
  window: number;
  /** Seed of the random content. Default 1. */
  seed?: number;
}

/** What a load measured, inside the client's JVM. */
export interface RatisJavaLoadResult {
  readonly writes: number;
  /** From the first send to the last reply, ns. */
  readonly wallNs: number;
  /** CPU time of the whole client JVM over the load (every thread, JIT and GC included), ns. */
  readonly cpuNs: number;
  /** Each write's latency, send to reply, µs, in send order. */
  readonly latenciesUs: readonly number[];
}

/** Apache Ratis's own Java client (`RaftClient` over gRPC) in a JVM of its own. */
export interface RatisJavaClient extends AsyncDisposable {
  readonly pid: number;
  readonly logFile: string;
  /** One write; its reply's `logIndex` and the state machine's answer. */
  write(content: Uint8Array): Promise<{ logIndex: bigint } & AppendLogWriteReply>;
  /** One read-only query (`sendReadOnly`); the state machine's answer. */
  query(content: Uint8Array): Promise<Uint8Array>;
  /** Pipelined writes through `RaftClient.async()`; resolves when every write is answered. */
  load(load: RatisJavaLoad): Promise<RatisJavaLoadResult>;
  /** Closes the client and its JVM. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts Ratis's own Java client against a group (the fixture's, or any `groupId` and `peers`),
 * for tests that compare with it and for the benchmark's Java side.
 *
 * @example
 * ```ts
 * await using java = await startRatisJavaClient(group);
 * const { index, position } = await java.write(Buffer.from('hello'));
 * ```
 */
export async function startRatisJavaClient(
  group: Pick<RatisGroup, 'groupId' | 'peers'>,
  options: RatisJavaClientOptions = {},
): Promise<RatisJavaClient> {
  const d = DEFAULT_RATIS_JAVA_CLIENT_OPTIONS;
  const heapMb = checkInteger('heapMb', options.heapMb ?? d.heapMb, 64, 65_536);
  const outstanding = checkInteger(
    'outstandingRequests',
    options.outstandingRequests ?? d.outstandingRequests,
    1,
    100_000,
  );
  const startTimeoutMs = checkInteger('startTimeoutMs', options.startTimeoutMs ?? d.startTimeoutMs, 1);
  const callTimeoutMs = checkInteger('callTimeoutMs', options.callTimeoutMs ?? d.callTimeoutMs, 1);
  const loadTimeoutMs = checkInteger('loadTimeoutMs', options.loadTimeoutMs ?? d.loadTimeoutMs, 1);
  if (group.peers.length === 0) throw new InvalidOptionError('group', 'no peers');

  const jars = await prepareRatisJars();
  const rootDir = await mkdtemp(join(tmpdir(), 'fastpath-ratis-client-'));
  const logFile = join(rootDir, 'java-client.log');
  const jvm = spawnLineProtocolJvm(
    'the Ratis Java client',
    jars.javaPath,
    [
      `-Xmx${heapMb}m`,
      '-XX:+UseSerialGC',
      '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
      '-cp',
      jars.classpath,
      'fastpath.ratisfixture.RatisClientDriver',
      '--group',
      group.groupId,
      '--outstanding',
      String(outstanding),
      ...group.peers.flatMap((p) => ['--peer', `${p.id}=${p.address}`]),
    ],
    { cwd: rootDir, logFile, cleanupDir: rootDir },
  );
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      try {
        await jvm.kill();
      } finally {
        await rm(rootDir, { recursive: true, force: true });
      }
    })();
    return closing;
  };
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      jvm.ready,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new RatisFixtureTimeoutError('the Ratis Java client to start', startTimeoutMs)),
          startTimeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (err) {
    await close();
    throw err;
  }

  const call = async (what: string, timeoutMs: number, op: string, ...args: string[]): Promise<JvmAnswer> => {
    if (closing !== undefined) throw new RatisFixtureStateError(`${what} after close()`);
    const answer = await jvm.command(timeoutMs, op, ...args);
    if (!answer.ok) throw new RatisPeerCommandError(what, String(answer.message));
    return answer;
  };
  const b64 = (bytes: Uint8Array): string =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

  return {
    pid: jvm.pid,
    logFile,
    async write(content) {
      const a = await call('Java client write', callTimeoutMs, 'write', b64(content));
      return {
        logIndex: BigInt(a['logIndex'] as number),
        index: BigInt(a['index'] as number),
        position: BigInt(a['position'] as number),
      };
    },
    async query(content) {
      const a = await call('Java client query', callTimeoutMs, 'query', b64(content));
      return new Uint8Array(Buffer.from(String(a['content']), 'base64'));
    },
    async load(load) {
      const sizeBytes = checkInteger('sizeBytes', load.sizeBytes, 0, 64 * 1024 * 1024);
      const writes = checkInteger('writes', load.writes, 1, 10_000_000);
      const window = checkInteger('window', load.window, 1, 100_000);
      const seed = checkInteger('seed', load.seed ?? 1, 0);
      const a = await call(
        'Java client load',
        loadTimeoutMs,
        'load',
        String(sizeBytes),
        String(writes),
        String(window),
        String(seed),
      );
      return {
        writes: a['writes'] as number,
        wallNs: a['wallNs'] as number,
        cpuNs: a['cpuNs'] as number,
        latenciesUs: a['latenciesUs'] as number[],
      };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
