// The client side of the om-call-cost probe, in a process of its own so that its CPU and its
// allocations are its own (the harness's child calls). `init`: a client over one OM transport and
// the keys the operations need; `measure`: one operation by 16 workers for a window, timed by the
// process's CPU, then the same for a second window with V8's sampling heap profiler counting every
// byte allocated (objects collected since included), so the bytes are a count of what the code
// makes, not of what the machine's noise does to its timing.
import { Session } from 'node:inspector/promises';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { serveCalls } from '../harness/index.js';
import type { OmCallFigures, OmCallOp, OmCallTransport } from './om-call-cost.js';

export type OmCallClientCall =
  | { op: 'init'; transport: OmCallTransport; omAddress: string; listKeys: number }
  | { op: 'measure'; operation: OmCallOp; windowMs: number };

const VOLUME = 'probe-volume';
const BUCKET = 'probe-bucket';
const WORKERS = 16;
/** Bytes between two of the heap profiler's samples: fine enough for a per-call count. */
const SAMPLING_BYTES = 1024;

const TRANSPORT_CLASS: Record<OmCallTransport, string> = {
  'hadoop-rpc': 'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory',
  grpc: 'org.apache.hadoop.ozone.om.protocolPB.GrpcOmTransportFactory',
};

let client: OzoneClient | undefined;
let listKeys = 0;
/** Per worker: whether its rename key is under its second name now. */
const moved: boolean[] = [];

const keyName = (i: number) => `listed/k-${String(i).padStart(5, '0')}`;
const renameName = (w: number, second: boolean) => `renamed/w${w}-${second ? 'b' : 'a'}`;

async function createEmpty(ozone: OzoneClient, name: string): Promise<void> {
  await (await ozone.createKey(VOLUME, BUCKET, name, { sizeBytes: 0, replication: 'THREE' })).close();
}

async function init(call: Extract<OmCallClientCall, { op: 'init' }>): Promise<object> {
  const ozone = createOzoneClient({
    omAddress: call.omAddress,
    properties: { 'ozone.om.transport.class': TRANSPORT_CLASS[call.transport] },
  });
  client = ozone;
  listKeys = call.listKeys;
  for (const make of [
    () => ozone.createVolume(VOLUME),
    () => ozone.createBucket(VOLUME, BUCKET, { layout: 'FILE_SYSTEM_OPTIMIZED' }),
  ])
    await make().catch((err: { status?: string }) => {
      if (!err.status?.endsWith('_ALREADY_EXISTS')) throw err;
    });
  const have = new Set(
    (await ozone.listKeys(VOLUME, BUCKET, { prefix: 'listed/', count: listKeys + 1 })).map((k) => k.name),
  );
  const missing = Array.from({ length: listKeys }, (_, i) => keyName(i)).filter((n) => !have.has(n));
  let next = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < missing.length) await createEmpty(ozone, missing[next++]!);
    }),
  );
  // Each worker's rename key, under its first name (an earlier client's may be under either).
  for (let w = 0; w < WORKERS; w++) {
    const second = await ozone.getFileStatus(VOLUME, BUCKET, renameName(w, true)).then(
      () => true,
      () => false,
    );
    if (second) await ozone.renameKey(VOLUME, BUCKET, renameName(w, true), renameName(w, false));
    else await createEmpty(ozone, renameName(w, false));
    moved[w] = false;
  }
  return {};
}

function step(ozone: OzoneClient, op: OmCallOp): (worker: number, i: number) => Promise<void> {
  switch (op) {
    case 'create':
      return async (_w, i) => {
        await createEmpty(ozone, `created/${process.pid}-${i}`);
      };
    case 'lookup':
      return async (_w, i) => {
        await ozone.getKeyInfo(VOLUME, BUCKET, keyName(i % listKeys));
      };
    case 'file-status':
      return async (_w, i) => {
        await ozone.getFileStatus(VOLUME, BUCKET, keyName(i % listKeys));
      };
    case 'list':
      return async () => {
        const n = (await ozone.listKeys(VOLUME, BUCKET, { prefix: 'listed/', count: listKeys })).length;
        if (n !== listKeys) throw new Error(`listed ${n} keys, ${listKeys} there`);
      };
    case 'rename':
      return async (w) => {
        const second = !moved[w];
        await ozone.renameKey(VOLUME, BUCKET, renameName(w, !second), renameName(w, second));
        moved[w] = second;
      };
  }
}

/** Runs `op` by every worker until `windowMs` has passed; the operations done. */
async function drive(ozone: OzoneClient, op: OmCallOp, windowMs: number): Promise<number> {
  const run = step(ozone, op);
  const deadline = performance.now() + windowMs;
  let ops = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = w; performance.now() < deadline; i += WORKERS) {
        await run(w, i);
        ops++;
      }
    }),
  );
  return ops;
}

async function measure(
  call: Extract<OmCallClientCall, { op: 'measure' }>,
): Promise<Omit<OmCallFigures, 'transport' | 'operation'>> {
  const ozone = client;
  if (!ozone) throw new Error('measure before init');
  await drive(ozone, call.operation, call.windowMs / 4); // warm: the code optimised, the connection up
  const cpu = process.cpuUsage();
  const started = performance.now();
  const ops = await drive(ozone, call.operation, call.windowMs);
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);

  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const sampledOps = await drive(ozone, call.operation, call.windowMs);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let bytes = 0;
  const stack = [profile.head];
  for (let node = stack.pop(); node; node = stack.pop()) {
    bytes += node.selfSize;
    stack.push(...node.children);
  }
  return {
    opsPerSec: (ops * 1000) / elapsedMs,
    cpuMicrosPerOp: (used.user + used.system) / ops,
    bytesPerOp: bytes / sampledOps,
  };
}

serveCalls(async (call: OmCallClientCall) => {
  switch (call.op) {
    case 'init':
      return init(call);
    case 'measure':
      return measure(call);
  }
});
