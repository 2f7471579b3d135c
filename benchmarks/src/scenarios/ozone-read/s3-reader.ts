// The S3 gateway row: `@aws-sdk/client-s3` in a Node process of its own (s3-reader-main.ts)
// reading the same files, through Ozone's S3 gateway in the real cluster's JVM, with the same
// offsets and sizes as fastpath's reader. The files stay where the other readers read them: each
// file set's bucket is made visible to S3 by a bucket link in the gateway's volume.
import { startChild, type ScenarioContext } from '../../harness/index.js';
import type { FileSetSpec } from './fastpath-reader-main.js';
import type { ReadCase } from './ozone-read-cases.js';
import type { CaseRound } from './ozone-read-scenario.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';
import { perOpFigures, type WindowCounts } from './read-accounting.js';
import type { S3Access } from './read-cluster.js';
import type { RunResult } from './fastpath-reader-main.js';
import type { S3ReaderCall } from './s3-reader-main.js';
import { LatencyRecorder } from '@fastpath/core';
import { expectedWidenedBytes } from './widening.js';

export interface S3Reader extends AsyncDisposable {
  /** For the report: what ran and how. */
  readonly description: string;
  runCase(c: ReadCase, set: FileSetSpec, round: number): Promise<CaseRound>;
}

export async function startS3Reader(
  ctx: ScenarioContext<OzoneReadSettings>,
  s3: Extract<S3Access, { available: true }>,
  seeds: number[],
): Promise<S3Reader> {
  const s = ctx.flags;
  const child = startChild<S3ReaderCall, unknown>(ctx.sourcePath('scenarios/ozone-read/s3-reader-main.ts'), {
    name: 's3-reader',
    logFile: ctx.results.logPath('s3-reader'),
    onSpawn: (c) =>
      ctx.results.recordCommand(
        c,
        "the S3 row: @aws-sdk/client-s3 through Ozone's S3 gateway, in its own process",
      ),
    env: { NODE_OPTIONS: `--max-old-space-size=${4096}` },
  });
  await child.ready;
  await child.call({ op: 'expect', seeds, fileSizeBytes: s.fileSizeBytes }, { timeoutMs: 600_000 });
  return {
    description:
      `\`@aws-sdk/client-s3\` ${s3.sdkVersion} in a Node process of its own: ${s.readers} concurrent ranged GETs ` +
      `(\`Range: bytes=<pos>-<pos+len-1>\`, ${s.readBytes / 1024} KiB) at the same seeded offsets as fastpath's reader, each answer's body copied into the reader's buffer and compared with the file's content; ` +
      "the SDK's defaults (keep-alive connections) with path-style addressing, one attempt per read and a request bound. " +
      `Ozone's S3 gateway (\`org.apache.hadoop.ozone.s3.Gateway\`) runs in the cluster's JVM at ${s3.gateway.endpoint}; ` +
      `its S3 buckets are the buckets of the volume \`${s3.gateway.volume}\`, where a bucket link per file set points at the files the other readers read. ` +
      "The gateway reads with its own Ozone client, verifying checksums (Ozone's default), so the row has the verify-on column only; " +
      "its CPU per read is the S3 client's Node process alone: the gateway's own work is in the cluster's JVM, beside the datanodes, and in no client's figure.",
    async runCase(c, set, round) {
      await child.call({
        op: 'open',
        clientConfig: s3.gateway.clientConfig(),
        objects: await s3.objects(set),
        requestTimeoutMs: s.readTimeoutMs,
      });
      const phase = (p: 'warmup' | 'measure', durationMs: number): S3ReaderCall => ({
        op: 'run',
        phase: p,
        durationMs,
        readers: s.readers,
        readBytes: s.readBytes,
        fileSizeBytes: s.fileSizeBytes,
        aligned: c.aligned,
        seed: s.seed,
        round,
        checkEvery: s.checkEvery,
      });
      const timeoutMs = s.warmupMs + s.measureMs + s.readTimeoutMs + 60_000;
      const warm = (await child.call(phase('warmup', s.warmupMs), { timeoutMs })) as RunResult;
      if (warm.firstError) ctx.log(`${c.id} warm-up: ${warm.firstError}`);
      const run = (await child.call(phase('measure', s.measureMs), { timeoutMs })) as RunResult;
      await child.call({ op: 'close' });
      // The gateway's Ozone client widens a verified read to whole checksum windows, as Java's does.
      const attempted = run.counts.ops + run.counts.errors + run.counts.wrongBytes;
      const counts: WindowCounts = {
        ...run.counts,
        bytesPredicted: attempted * expectedWidenedBytes(c.row.bytesPerChecksum, s.readBytes),
      };
      if (run.firstError) ctx.log(`${c.id} round ${round + 1}: ${run.firstError}`);
      return {
        round,
        counts,
        figures: perOpFigures(counts),
        latency: LatencyRecorder.fromBase64(run.latency).summary(),
        checkMicrosPerRead: run.checkMicrosPerRead,
        streamsVerify: [],
        ...(run.firstError === undefined ? {} : { firstError: run.firstError }),
      };
    },
    async [Symbol.asyncDispose]() {
      await child.close();
    },
  };
}
