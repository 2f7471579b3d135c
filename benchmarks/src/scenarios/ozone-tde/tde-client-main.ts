// fastpath's clients of an encrypted bucket, in a process of their own so that the KMS's CPU and
// theirs never mix: `clients` Ozone clients, each with a KMS delegation token of its own (one
// GETDELEGATIONTOKEN per client at set-up, every DECRYPT_EEK after that authenticated by the
// token, the path HADOOP-20045 is about). A read window opens the small files round-robin (each
// open one lookup and one DECRYPT_EEK) and reads each whole; a write window writes new ones (each
// create one generateEncryptedKey by the OM); the large reads read a whole large key, encrypted
// or plain.
import { performance } from 'node:perf_hooks';
import { LatencyRecorder } from '@fastpath/core';
import { KmsClient } from '@fastpath/kms-client';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import {
  LARGE_KEY,
  largeKeyBytes,
  largeSumCheck,
  smallFileName,
  TDE_BUCKET_KEY,
  TDE_ENCRYPTED_BUCKET,
  TDE_PLAIN_BUCKET,
  TDE_USER,
  TDE_VOLUME,
  type LargeSample,
  type TdeCall,
  type WindowSample,
} from './tde-workload.js';

let clients: OzoneClient[] = [];
let setup: Extract<TdeCall, { op: 'setup' }> | undefined;
let smallContent: Buffer = Buffer.alloc(0);

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function doSetup(call: Extract<TdeCall, { op: 'setup' }>): Promise<{ tokens: number }> {
  setup = call;
  const providerPath = `kms://http@${call.kmsUrl.replace(/^http:\/\//, '')}`;
  const kms = new KmsClient({ url: call.kmsUrl, user: TDE_USER });
  try {
    // One token per client: the KMS creates each in ZooKeeper, then only verifies it.
    const tokens = [];
    for (let i = 0; i < call.clients; i++) tokens.push(await kms.getDelegationToken({ renewer: TDE_USER }));
    clients = tokens.map((delegationToken) =>
      createOzoneClient({
        omAddress: call.omAddress,
        userName: TDE_USER,
        properties: { 'hadoop.security.key.provider.path': providerPath },
        kms: { delegationToken },
      }),
    );
  } finally {
    await kms.close();
  }
  const c = clients[0]!;
  await c.createVolume(TDE_VOLUME);
  await c.createBucket(TDE_VOLUME, TDE_ENCRYPTED_BUCKET, { encryptionKey: TDE_BUCKET_KEY });
  await c.createBucket(TDE_VOLUME, TDE_PLAIN_BUCKET);
  smallContent = contractKeyBytes(call.fileBytes, 1);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      for (let i = next++; i < call.files; i = next++)
        await client.writeKey(TDE_VOLUME, TDE_ENCRYPTED_BUCKET, smallFileName(i), smallContent);
    }),
  );
  if (call.largeBytes > 0) {
    const large = largeKeyBytes(call.largeBytes);
    await c.writeKey(TDE_VOLUME, TDE_ENCRYPTED_BUCKET, LARGE_KEY, large);
    await c.writeKey(TDE_VOLUME, TDE_PLAIN_BUCKET, LARGE_KEY, large);
  }
  return { tokens: clients.length };
}

/** Runs `op` on every client in a loop until the window closes; counts, times and CPU of the window. */
async function window(
  windowMs: number,
  op: (client: OzoneClient, index: number, latency: LatencyRecorder, whole: LatencyRecorder) => Promise<void>,
): Promise<WindowSample> {
  const latency = new LatencyRecorder();
  const whole = new LatencyRecorder();
  let files = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const cpuStart = cpuSeconds();
  const start = performance.now();
  const end = start + windowMs;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const i = next++;
        try {
          await op(client, i, latency, whole);
          files++;
        } catch (err) {
          errors++;
          firstError ??= (err as Error).stack ?? String(err);
        }
      }
    }),
  );
  return {
    files,
    errors,
    elapsedMs: performance.now() - start,
    latencies: latency.toBase64(),
    fileLatencies: whole.toBase64(),
    cpuSeconds: cpuSeconds() - cpuStart,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

function readWindow(windowMs: number): Promise<WindowSample> {
  const s = setup!;
  return window(windowMs, async (client, i, latency, whole) => {
    const t0 = performance.now();
    const stream = await client.openKey(TDE_VOLUME, TDE_ENCRYPTED_BUCKET, smallFileName(i % s.files));
    latency.recordMs(performance.now() - t0);
    try {
      const got = await stream.readFully(0, stream.lengthBytes);
      // A wrong data key decrypts to other bytes: a file that reads wrong is an error, not a file.
      if (!got.equals(smallContent)) throw new Error(`${smallFileName(i % s.files)} read back other bytes`);
    } finally {
      stream.close();
    }
    whole.recordMs(performance.now() - t0);
  });
}

function writeWindow(windowMs: number, round: number): Promise<WindowSample> {
  return window(windowMs, async (client, i, latency) => {
    const t0 = performance.now();
    await client.writeKey(TDE_VOLUME, TDE_ENCRYPTED_BUCKET, `new-r${round}-${i}`, smallContent);
    latency.recordMs(performance.now() - t0);
  });
}

async function largeRead(bucket: string): Promise<LargeSample> {
  const t0 = performance.now();
  const data = await clients[0]!.readKey(TDE_VOLUME, bucket, LARGE_KEY);
  const elapsedMs = performance.now() - t0;
  return { bytes: data.length, elapsedMs, sumCheck: largeSumCheck(data) };
}

serveCalls<TdeCall, unknown>(async (call) => {
  switch (call.op) {
    case 'setup':
      return doSetup(call);
    case 'read':
      return readWindow(call.windowMs);
    case 'write':
      return writeWindow(call.windowMs, call.round);
    case 'large':
      return largeRead(call.bucket);
    case 'close':
      for (const c of clients) c.close();
      clients = [];
      return null;
  }
});
