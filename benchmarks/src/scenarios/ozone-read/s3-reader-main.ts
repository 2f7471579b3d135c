// The S3 path a Node team would take today, in its own process: `@aws-sdk/client-s3` ranged GETs
// (`Range: bytes=<pos>-<pos+len-1>`) through Ozone's S3 gateway, 16 (or --readers) concurrent
// loops drawing the same files and offsets as fastpath's reader, every answer compared with the
// file's known content. The SDK runs with its defaults except the endpoint, path-style
// addressing, a request bound, and one attempt per read (a failed read counts as an error
// instead of being retried out of sight).
import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@fastpath/ozone-fixture';
import { LatencyRecorder } from '@fastpath/core';
import { serveCalls } from '../../harness/index.js';
import type { RunResult } from './fastpath-reader-main.js';
import { fileContents } from './file-content.js';
import { emptyWindowCounts } from './read-accounting.js';
import { readPositions, readerSeed } from './read-offsets.js';

/** An S3 object: the bucket S3 sees (a link to the file's Ozone bucket) and the key. */
export interface S3Object {
  bucket: string;
  key: string;
}

export type S3ReaderCall =
  | { op: 'expect'; seeds: number[]; fileSizeBytes: number }
  | {
      op: 'open';
      clientConfig: S3ClientConfig;
      /** The objects of the case's file set, by file index. */
      objects: S3Object[];
      requestTimeoutMs: number;
    }
  | {
      op: 'run';
      phase: 'warmup' | 'measure';
      durationMs: number;
      readers: number;
      readBytes: number;
      fileSizeBytes: number;
      aligned: boolean;
      seed: number;
      round: number;
      checkEvery: number;
    }
  | { op: 'close' };

let expected: Buffer[] = [];
let client: S3Client | undefined;
let objects: S3Object[] = [];

/** One ranged GET into `buffer`: the body's chunks copied in as they arrive (no concatenation). */
async function rangedGet(s3: S3Client, object: S3Object, offset: number, buffer: Buffer): Promise<void> {
  const answer = await s3.send(
    new GetObjectCommand({
      Bucket: object.bucket,
      Key: object.key,
      Range: `bytes=${offset}-${offset + buffer.length - 1}`,
    }),
  );
  let at = 0;
  for await (const chunk of answer.Body as Readable) {
    const bytes = chunk as Buffer;
    if (at + bytes.length > buffer.length) {
      (answer.Body as Readable).destroy();
      throw new Error(`${object.bucket}/${object.key} at ${offset}: more bytes than the range asked for`);
    }
    bytes.copy(buffer, at);
    at += bytes.length;
  }
  if (at !== buffer.length)
    throw new Error(`${object.bucket}/${object.key} at ${offset}: ${at} bytes, asked for ${buffer.length}`);
}

async function run(call: Extract<S3ReaderCall, { op: 'run' }>): Promise<RunResult> {
  const s3 = client;
  if (!s3 || objects.length === 0) throw new Error('run before open');
  const spec = {
    files: objects.length,
    fileSizeBytes: call.fileSizeBytes,
    readBytes: call.readBytes,
    aligned: call.aligned,
  };
  const latency = new LatencyRecorder();
  const counts = emptyWindowCounts();
  let checkNs = 0n;
  let firstError: string | undefined;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endMs = started + call.durationMs;
  const reader = async (index: number): Promise<void> => {
    const next = readPositions(spec, readerSeed(call.seed, call.round, index, call.phase));
    const buffer = Buffer.allocUnsafe(call.readBytes);
    let n = 0;
    while (performance.now() < endMs) {
      const { file, offset } = next();
      const began = performance.now();
      counts.bytesRequested += call.readBytes;
      try {
        await rangedGet(s3, objects[file]!, offset, buffer);
      } catch (err) {
        counts.errors++;
        firstError ??= `${(err as Error).name}: ${(err as Error).message}`;
        continue;
      }
      latency.recordMs(performance.now() - began);
      if (n++ % call.checkEvery === 0) {
        const t0 = process.hrtime.bigint();
        const same = buffer.equals(expected[file]!.subarray(offset, offset + call.readBytes));
        checkNs += process.hrtime.bigint() - t0;
        counts.checkedOps++;
        if (!same) {
          counts.wrongBytes++;
          firstError ??= `file ${file} at ${offset}: the bytes read differ from the file's content`;
          continue;
        }
      }
      counts.ops++;
    }
  };
  await Promise.all(Array.from({ length: call.readers }, (_, i) => reader(i)));
  counts.measuredMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  counts.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    counts,
    latency: latency.toBase64(),
    checkMicrosPerRead: counts.checkedOps ? Number(checkNs) / 1000 / counts.checkedOps : 0,
    streamsVerify: [],
    ...(firstError === undefined ? {} : { firstError }),
  };
}

function close(): void {
  client?.destroy();
  client = undefined;
  objects = [];
}

serveCalls<S3ReaderCall, unknown>(async (call) => {
  switch (call.op) {
    case 'expect': {
      const started = performance.now();
      expected = fileContents(call.seeds, call.fileSizeBytes);
      return { ms: performance.now() - started };
    }
    case 'open':
      close();
      client = new S3Client({
        ...call.clientConfig,
        maxAttempts: 1,
        requestHandler: { requestTimeout: call.requestTimeoutMs, throwOnRequestTimeout: true },
      });
      objects = call.objects;
      return {};
    case 'run':
      return run(call);
    case 'close':
      close();
      return {};
  }
});
