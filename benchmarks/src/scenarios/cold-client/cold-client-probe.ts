// One cold client, the whole life of a fresh process: create the ofs:// file system, look the file
// up (getFileStatus), read 64 KiB, close. The scenario bundles this file (see probe-bundles.ts) and runs it with
// plain `node`, never through tsx, so the process pays what a user's process pays. It prints one
// JSON line of times in ms since the process started (performance.timeOrigin is set as Node
// starts, before any user code).
import { performance } from 'node:perf_hooks';

export interface ProbeInput {
  omAddress: string;
  /** The cluster's CA; without one the client speaks plain gRPC (the real cluster here has no TLS). */
  caFile?: string;
  volume: string;
  bucket: string;
  key: string;
  readBytes: number;
  properties: Record<string, string>;
}

export interface ProbeTimes {
  /** Process start to the first line of this module. */
  startToUserMs: number;
  /** First line to a constructed file system: loading and compiling the client's modules, then its constructor. */
  createMs: number;
  /** `getFileStatus` (the OM channel's connection and TLS handshake included). */
  metadataMs: number;
  /** Opening the file (a second OM call) and reading `readBytes`: the first datanode contact. */
  readMs: number;
  /** Process start to the client closed. */
  totalMs: number;
  bytesRead: number;
}

export async function runProbe(input: ProbeInput): Promise<ProbeTimes> {
  const t0 = performance.now();
  const { newFileSystemInstance } = await import('@fastpath/ozone-fs-client');
  const fs = newFileSystemInstance(`ofs://${input.omAddress}/`, {
    ...(input.caFile === undefined ? {} : { tls: { caFile: input.caFile } }),
    properties: input.properties,
  });
  const tCreate = performance.now();
  const path = `/${input.volume}/${input.bucket}/${input.key}`;
  await fs.getFileStatus(path);
  const tMeta = performance.now();
  const stream = await fs.open(path);
  const data = new Uint8Array(input.readBytes);
  await stream.readFully(0, data);
  const tRead = performance.now();
  stream.close();
  fs.close();
  const tEnd = performance.now();
  return {
    startToUserMs: t0,
    createMs: tCreate - t0,
    metadataMs: tMeta - tCreate,
    readMs: tRead - tMeta,
    totalMs: tEnd,
    bytesRead: data.length,
  };
}

// The input comes in the environment, so the same bundle runs directly and under a loader.
const arg = process.env['COLD_CLIENT_PROBE_INPUT'];
if (arg !== undefined) {
  runProbe(JSON.parse(arg) as ProbeInput).then(
    (times) => process.stdout.write(`${JSON.stringify(times)}\n`),
    (err: unknown) => {
      process.stderr.write(`cold-client probe failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
