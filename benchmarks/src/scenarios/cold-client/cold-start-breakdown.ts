// Where a cold client's time goes, step by step, in one fresh process (run with plain `node`
// after bundling, like the probe). Modules are loaded one by one in the order the client needs
// them, so each figure is what that module adds; then the TLS context, the checksums, the
// client, the OM calls, the read, and a TLS handshake with each datanode. Prints one JSON line.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { connect, createSecureContext } from 'node:tls';
import { crc32 } from 'node:zlib';
import type { ProbeInput } from './cold-client-probe.js';

export interface BreakdownInput extends ProbeInput {
  /** The breakdown times the TLS steps, so it always runs against the TLS mini cluster. */
  caFile: string;
  datanodes: string[];
}

export type Breakdown = Record<string, number>;

async function timed<T>(out: Breakdown, name: string, fn: () => T | Promise<T>): Promise<T> {
  const t = performance.now();
  const value = await fn();
  out[name] = performance.now() - t;
  return value;
}

function handshake(address: string, ca: Buffer): Promise<void> {
  const i = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: address.slice(0, i),
      port: Number(address.slice(i + 1)),
      ca,
      ALPNProtocols: ['h2'],
    });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

export async function runBreakdown(input: BreakdownInput): Promise<Breakdown> {
  const out: Breakdown = { startToUserMs: performance.now() };
  await timed(out, 'load @grpc/grpc-js', () => import('@grpc/grpc-js'));
  await timed(out, 'load protobufjs', () => import('protobufjs/minimal.js'));
  await timed(out, 'load @node-rs/crc32', () => import('@node-rs/crc32'));
  await timed(out, 'load @fastpath/core', () => import('@fastpath/core'));
  await timed(out, 'load @fastpath/client-warmup', () => import('@fastpath/client-warmup'));
  const { newFileSystemInstance } = await timed(
    out,
    'load @fastpath/ozone-fs-client (its code and the protocol codecs built)',
    () => import('@fastpath/ozone-fs-client'),
  );
  const ca = readFileSync(input.caFile);
  await timed(out, 'secure context, first', () => createSecureContext({ ca }));
  await timed(out, 'secure context, second', () => createSecureContext({ ca }));
  const sample = Buffer.alloc(16 * 1024, 1);
  await timed(out, 'CRC32 of 16 KiB, first', () => crc32(sample));
  await timed(out, 'CRC32 of 16 KiB, second', () => crc32(sample));
  const fs = await timed(out, 'file system constructor', () =>
    newFileSystemInstance(`ofs://${input.omAddress}/`, {
      tls: { caFile: input.caFile },
      properties: input.properties,
    }),
  );
  const path = `/${input.volume}/${input.bucket}/${input.key}`;
  await timed(out, 'first getFileStatus (OM channel connect + TLS + OM)', () => fs.getFileStatus(path));
  await timed(out, 'second getFileStatus (the OM wait alone)', () => fs.getFileStatus(path));
  for (const round of ['first', 'second'] as const) {
    await timed(out, `open + read 64 KiB, ${round}`, async () => {
      const stream = await fs.open(path);
      await stream.readFully(0, new Uint8Array(input.readBytes));
      stream.close();
    });
  }
  fs.close();
  for (const [i, address] of input.datanodes.entries())
    await timed(out, `TLS handshake, datanode ${i + 1}`, () => handshake(address, ca));
  const { currentWarmup } = await import('@fastpath/client-warmup');
  for (const o of (await currentWarmup()?.done) ?? []) out[`warm-up step ${o.name}`] = o.durationMs;
  return out;
}

const arg = process.env['COLD_CLIENT_PROBE_INPUT'];
if (arg !== undefined) {
  runBreakdown(JSON.parse(arg) as BreakdownInput).then(
    (b) => process.stdout.write(`${JSON.stringify(b)}\n`),
    (err: unknown) => {
      process.stderr.write(
        `cold-start breakdown failed: ${err instanceof Error ? err.stack : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
