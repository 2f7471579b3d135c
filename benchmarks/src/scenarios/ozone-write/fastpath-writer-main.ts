// fastpath's writer, in its own process so that its CPU time is its own: one OzoneClient shared
// by N concurrent writers, each writing its keys in turn (CreateKey, write calls of the set size,
// close = the last PutBlock, its watch and CommitKey), timed per key; the pass's process CPU; then,
// outside the measured window, every key read back whole with checksums verified and compared
// with the bytes written (and written as the row's replication says), and the keys deleted.
import {
  createOzoneClient,
  DEFAULT_OZONE_CLIENT_CONFIG,
  OmStatusError,
  ozoneClientConfigFromProperties,
  type OzoneClient,
  type OzoneClientConfig,
} from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
import { serveCalls } from '../../harness/index.js';
import { runProfiled } from '../../harness/thread-profiles.js';
import type { PassSample } from './pass-figures.js';
import type { VerifyCounts } from './ozone-write-results.js';
import type { WriteReplication } from './ozone-write-settings.js';

/** One key of a pass: its name and the seed of its content (contractKeyBytes). */
export interface KeySpec {
  name: string;
  seed: number;
}

export type WriterCall =
  | {
      op: 'open';
      omAddress: string;
      volume: string;
      bucket: string;
      /** Client settings beside the defaults, for both of the writer's clients. */
      config?: Partial<OzoneClientConfig>;
      /** Ozone client properties applied after `config` (`--client-property`), checked as the client checks them. */
      properties?: Record<string, string>;
    }
  | { op: 'prepare'; seeds: number[]; sizeBytes: number }
  | {
      op: 'write';
      keys: KeySpec[];
      writers: number;
      sizeBytes: number;
      writeBytes: number;
      /** RATIS/THREE, or an EC config in Ozone's text form (`rs-3-2-1024k`). */
      replication: WriteReplication;
      /** Stream the keys (Ratis DataStream, `ozone.fs.datastream.enabled`) rather than write them through the Raft log. */
      dataStream: boolean;
      /** Run the pass under the CPU profiler, its profile written here. */
      profilePath?: string;
    }
  | {
      op: 'verify';
      keys: KeySpec[];
      sizeBytes: number;
      /** What the keys were written as: the OM's record of each must say the same type (RATIS, EC). */
      replication: WriteReplication;
    }
  | { op: 'delete'; names: string[] }
  | { op: 'close' };

let client: OzoneClient | undefined;
/** The same cluster's client that streams every key (Ozone's `ozone.fs.datastream.enabled`, threshold 0), made on first use. */
let streamingClient: OzoneClient | undefined;
let omAddress = '';
/** The run's client settings beside the defaults (`open`), for both clients. */
let clientConfig: Partial<OzoneClientConfig> = {};
let target = { volume: '', bucket: '' };
/** The content of every key by seed and size, built before any pass (not measured). */
const contents = new Map<string, Buffer>();
const contentKey = (seed: number, sizeBytes: number): string => `${seed}/${sizeBytes}`;

function content(seed: number, sizeBytes: number): Buffer {
  const c = contents.get(contentKey(seed, sizeBytes));
  if (!c) throw new Error(`no content prepared for seed ${seed}, ${sizeBytes} bytes`);
  return c;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

async function ignoreExisting(create: () => Promise<void>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (!(err instanceof OmStatusError && err.status.endsWith('_ALREADY_EXISTS'))) throw err;
  }
}

async function write(call: Extract<WriterCall, { op: 'write' }>): Promise<PassSample> {
  if (!client) throw new Error('write before open');
  const ozone = call.dataStream
    ? (streamingClient ??= createOzoneClient({
        omAddress,
        // Every key streamed, as Java's createStreamKey streams it (the threshold is the file
        // systems' choice between the two writers).
        config: { ...clientConfig, dataStreamEnabled: true, dataStreamAutoThresholdBytes: 0 },
      }))
    : client;
  const datas = call.keys.map((k) => content(k.seed, call.sizeBytes));
  const latenciesUs: number[] = [];
  let keys = 0;
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  const writer = async (w: number): Promise<void> => {
    for (let i = w; i < call.keys.length; i += call.writers) {
      const data = datas[i]!;
      const began = process.hrtime.bigint();
      try {
        const out = await ozone.createKey(target.volume, target.bucket, call.keys[i]!.name, {
          sizeBytes: data.length,
          replication: call.replication,
        });
        for (let o = 0; o < data.length; o += call.writeBytes)
          await out.write(data.subarray(o, o + call.writeBytes));
        await out.close();
      } catch (err) {
        errors++;
        firstError ??= `${call.keys[i]!.name}: ${describe(err)}`;
        continue;
      }
      latenciesUs.push(Number(process.hrtime.bigint() - began) / 1000);
      keys++;
      bytes += data.length;
    }
  };
  const streamsBefore = await streamsOpened(ozone);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(call.writers, call.keys.length) }, (_, w) => writer(w)));
  const wallNs = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpu);
  // A streamed row that wrote without a stream (a key below the threshold, a setting lost on the
  // way) would be measured as the async path under the wrong name.
  if (call.dataStream && keys > 0 && (await streamsOpened(ozone)) === streamsBefore)
    throw new Error('a streamed pass wrote its keys without opening a Ratis DataStream stream');
  return {
    keys,
    errors,
    bytes,
    wallNs,
    cpuNs: (used.user + used.system) * 1000,
    latenciesUs,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** Ratis DataStream streams the client's pipelines have opened (`ratis_client_datastream_streams_total`, all series). */
async function streamsOpened(ozone: OzoneClient): Promise<number> {
  const text = await ozone.metrics.metrics();
  let sum = 0;
  for (const m of text.matchAll(/^ratis_client_datastream_streams_total\{[^}]*\} (\d+)$/gm))
    sum += Number(m[1]);
  return sum;
}

/** Keys read at once: whole keys are held in memory, so fewer of the large ones. */
function readConcurrency(sizeBytes: number): number {
  return Math.max(1, Math.min(16, Math.floor((256 * 1024 * 1024) / Math.max(1, sizeBytes))));
}

async function verify(call: Extract<WriterCall, { op: 'verify' }>): Promise<VerifyCounts> {
  const ozone = client;
  if (!ozone) throw new Error('verify before open');
  const counts: VerifyCounts = { verified: 0, failed: 0 };
  // A key the OM silently gave another replication (a bucket default, a refused config) would
  // measure the wrong write path: the OM's own record is checked too.
  const type = call.replication === 'THREE' ? 'RATIS' : 'EC';
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < call.keys.length) {
      const key = call.keys[next++]!;
      try {
        const info = await ozone.getKeyInfo(target.volume, target.bucket, key.name);
        if (info.replicationType !== type)
          throw new Error(`written as ${info.replicationType}, not ${type} (${call.replication})`);
        const read = await ozone.readKey(target.volume, target.bucket, key.name, { verifyChecksum: true });
        if (!read.equals(content(key.seed, call.sizeBytes)))
          throw new Error(`${read.length} bytes read differ from the ${call.sizeBytes} written`);
        counts.verified++;
      } catch (err) {
        counts.failed++;
        counts.firstError ??= `${key.name}: ${describe(err)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: readConcurrency(call.sizeBytes) }, reader));
  return counts;
}

async function remove(names: readonly string[]): Promise<{ deleted: number }> {
  const ozone = client;
  if (!ozone) throw new Error('delete before open');
  let next = 0;
  const deleter = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++]!;
      try {
        await ozone.deleteKey(target.volume, target.bucket, name);
      } catch (err) {
        // A key whose write failed was never committed: it is counted as an error already.
        if (!(err instanceof OmStatusError && err.status === 'KEY_NOT_FOUND')) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, deleter));
  return { deleted: names.length };
}

serveCalls(async (call: WriterCall) => {
  switch (call.op) {
    case 'open': {
      client?.close();
      streamingClient?.close();
      streamingClient = undefined;
      omAddress = call.omAddress;
      clientConfig = ozoneClientConfigFromProperties(call.properties ?? {}, {
        ...DEFAULT_OZONE_CLIENT_CONFIG,
        ...call.config,
      });
      client = createOzoneClient({ omAddress: call.omAddress, config: clientConfig });
      target = { volume: call.volume, bucket: call.bucket };
      const ozone = client;
      await ignoreExisting(() => ozone.createVolume(call.volume));
      await ignoreExisting(() => ozone.createBucket(call.volume, call.bucket, { layout: 'OBJECT_STORE' }));
      return { clientId: ozone.clientId };
    }
    case 'prepare': {
      const started = performance.now();
      for (const seed of call.seeds) {
        const key = contentKey(seed, call.sizeBytes);
        if (!contents.has(key)) contents.set(key, contractKeyBytes(call.sizeBytes, seed));
      }
      return { ms: performance.now() - started };
    }
    case 'write': {
      if (call.profilePath === undefined) return write(call);
      const { result, profile } = await runProfiled(call.profilePath, () => write(call));
      return { ...result, profile };
    }
    case 'verify':
      return verify(call);
    case 'delete':
      return remove(call.names);
    case 'close':
      client?.close();
      client = undefined;
      streamingClient?.close();
      streamingClient = undefined;
      return {};
  }
});
