// A read worker thread: a read context of its own (datanode channels, stream pools, short-circuit
// reads) and its own copy of each key stream whose reads reach it. It does the whole datanode side
// of a read (GetBlock, ReadChunk, decoding, checksum verification, the copy out of the answers)
// and sends the bytes back, transferred, or writes them into the caller's shared memory. A block
// token refused here is renewed by the stream on the caller's thread, which holds the OM lookup.
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '@fastpath/core';
import { KeyInputStream, type KeyBlockLocation, type RefusedBlockToken } from '../../key-input-stream.js';
import { OzoneClosedError } from '../../ozone-errors.js';
import { createReadContext, type ReadContextOptions } from '../read-context.js';
import { encodeError, reviveError } from './read-worker-errors.js';
import type { FromReadWorker, ToReadWorker, WorkerStreamState } from './read-worker-messages.js';

const port = parentPort;
if (!port) throw new Error('the read worker runs in a worker thread');
const ctx = createReadContext(workerData as ReadContextOptions, systemClock);
/** Each stream, with how many of its bad replicas were already reported. */
const streams = new Map<number, { stream: KeyInputStream; reported: number }>();

interface Renewal {
  stream: number;
  resolve(blocks: readonly KeyBlockLocation[]): void;
  reject(err: Error): void;
}
/**
 * New block tokens asked of the caller's thread, by id. The caller answers each, and a stream's
 * close ends the waits on it here; the pool's close ends the thread.
 */
const renewals = new Map<number, Renewal>();
let nextRenewal = 1;

function renew(stream: number, refused: RefusedBlockToken): Promise<readonly KeyBlockLocation[]> {
  return new Promise((resolve, reject) => {
    const id = nextRenewal++;
    renewals.set(id, { stream, resolve, reject });
    port!.postMessage({ op: 'renew', id, stream, refused } satisfies FromReadWorker);
  });
}

/** The renewal `id` (gone when its stream closed first, and then answered already). */
function settled(id: number): Renewal | undefined {
  const renewal = renewals.get(id);
  renewals.delete(id);
  return renewal;
}

function state(entry: { stream: KeyInputStream; reported: number }): WorkerStreamState {
  const bad = entry.stream.badReplicas.slice(entry.reported);
  entry.reported += bad.length;
  return { stats: { ...entry.stream.stats }, cachedBytes: entry.stream.cachedBytes, badReplicas: bad };
}

async function read(m: Extract<ToReadWorker, { op: 'read' }>): Promise<void> {
  const entry = streams.get(m.stream);
  let answer: FromReadWorker;
  const transfer: ArrayBuffer[] = [];
  try {
    if (!entry) throw new OzoneClosedError('the key input stream');
    if (m.shared) {
      await entry.stream.read(
        m.position,
        new Uint8Array(m.shared.buffer, m.shared.byteOffset, m.length),
        0,
        m.length,
      );
      answer = { op: 'read', id: m.id, data: undefined, state: state(entry) };
    } else {
      // Memory of its own (not a slice of Node's pool), so that it can be transferred.
      const out = Buffer.allocUnsafeSlow(m.length);
      await entry.stream.read(m.position, out, 0, m.length);
      transfer.push(out.buffer);
      answer = { op: 'read', id: m.id, data: out.buffer, state: state(entry) };
    }
  } catch (err) {
    answer = { op: 'failed', id: m.id, error: encodeError(err), state: entry ? state(entry) : undefined };
  }
  port!.postMessage(answer, transfer);
}

port.on('message', (m: ToReadWorker) => {
  switch (m.op) {
    case 'open':
      streams.set(m.stream, {
        stream: new KeyInputStream(ctx, m.spec.blocks, m.spec.lengthBytes, m.spec.verifyChecksum, {
          windowCacheBytes: m.spec.windowCacheBytes,
          tokenSource: { ask: (refused) => renew(m.stream, refused) },
        }),
        reported: 0,
      });
      break;
    case 'read':
      void read(m);
      break;
    case 'unbuffer':
      streams.get(m.stream)?.stream.unbuffer();
      break;
    case 'close':
      streams.get(m.stream)?.stream.close();
      streams.delete(m.stream);
      for (const [id, renewal] of renewals)
        if (renewal.stream === m.stream) settled(id)?.reject(new OzoneClosedError('the key input stream'));
      break;
    case 'renewed':
      settled(m.id)?.resolve(m.blocks);
      break;
    case 'renewal-failed':
      settled(m.id)?.reject(reviveError(m.error));
      break;
    case 'shutdown':
      for (const { stream } of streams.values()) stream.close();
      streams.clear();
      ctx.datanodes.close();
      // Ends this thread only; its sockets close with it.
      process.exit(0);
  }
});
