// fastpath's client in a process of its own (so its CPU time is its own), over the OM transport
// the scenario names: N concurrent workers on one OzoneClient, one operation per window, each
// operation timed; the process's CPU over the window. The round's keys stay here: a create
// window's keys are what the later windows look up, stat, rename and delete, and `verify` lists
// the round's keys (outside any window) against what its operations should have left.
import { createOzoneClient, OmStatusError, type OzoneClient } from '@fastpath/ozone-fs-client';
import { topSelfFunctions } from '../../harness/cpu-profile-summary.js';
import { serveCalls } from '../../harness/index.js';
import { runProfiled } from '../../harness/thread-profiles.js';
import type { InitAnswer, MetaCall, MetaOp, VerifyCounts, WindowSample } from './meta-workload.js';
import { RoundKeys } from './round-keys.js';

const ONE_BYTE = Buffer.from([0x2a]);
const REPLICATION = 'THREE';
/** The busiest functions a profiled window reports. */
const TOP_FUNCTIONS = 12;

let client: OzoneClient | undefined;
let where = { volume: '', bucket: '', listPrefix: '', listKeys: 0 };
let round: RoundKeys | undefined;

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

async function ignoreExisting(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (!(err instanceof OmStatusError && err.status.endsWith('_ALREADY_EXISTS'))) throw err;
  }
}

/**
 * Every file under `prefix/`, paged as a caller listing a whole directory pages. `listKeys`
 * promises at most `count` keys a call: the list window takes a short page for the end (its count
 * check catches a listing cut short), the listing checks go on to an empty page.
 */
async function listFiles(ozone: OzoneClient, prefix: string, toEmptyPage = false): Promise<string[]> {
  const files: string[] = [];
  // Made once, not per key (as in the Java runner): the filter is the benchmark's work, not the client's.
  const dir = `${prefix}/`;
  let startAfter: string | undefined;
  for (;;) {
    const page = await ozone.listKeys(where.volume, where.bucket, {
      prefix: dir,
      count: 1000,
      ...(startAfter === undefined ? {} : { startAfter }),
    });
    for (const k of page) if (!k.name.endsWith('/') && k.name.startsWith(dir)) files.push(k.name);
    if (page.length === 0 || (!toEmptyPage && page.length < 1000)) return files;
    startAfter = page[page.length - 1]!.name;
  }
}

async function createKey(ozone: OzoneClient, name: string, data: Buffer | null): Promise<void> {
  const out = await ozone.createKey(where.volume, where.bucket, name, {
    sizeBytes: data?.length ?? 0,
    replication: REPLICATION,
  });
  if (data) await out.write(data);
  await out.close();
}

/** The list prefix's keys, made once per client (the ones missing from an earlier run's). */
async function prepareList(ozone: OzoneClient): Promise<void> {
  const have = new Set(await listFiles(ozone, where.listPrefix));
  const names = Array.from(
    { length: where.listKeys },
    (_, i) => `${where.listPrefix}/k-${String(i).padStart(5, '0')}`,
  ).filter((n) => !have.has(n));
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < names.length) await createKey(ozone, names[next++]!, null);
    }),
  );
}

/** One operation of a window; false when there is no key left for this worker (delete's are used up; rename's all moving). */
type Step = (worker: number) => Promise<boolean>;

function step(ozone: OzoneClient, keys: RoundKeys, op: MetaOp): Step {
  const { volume, bucket } = where;
  switch (op) {
    case 'create-empty':
    case 'create-1b': {
      const data = op === 'create-1b' ? ONE_BYTE : null;
      return async (w) => {
        const name = keys.nextCreate(op, w);
        await createKey(ozone, name, data);
        keys.created(op, name);
        return true;
      };
    }
    case 'lookup':
      return async () => {
        const k = keys.nextExisting();
        const info = await ozone.getKeyInfo(volume, bucket, k.name);
        if (info.sizeBytes !== k.size)
          throw new Error(`${k.name}: ${info.sizeBytes} bytes, ${k.size} written`);
        return true;
      };
    case 'file-status':
      return async () => {
        const k = keys.nextExisting();
        const s = await ozone.getFileStatus(volume, bucket, k.name);
        if (s.isDirectory || s.sizeBytes !== k.size)
          throw new Error(
            `${k.name}: ${s.isDirectory ? 'a directory' : `${s.sizeBytes} bytes`}, ${k.size} written`,
          );
        return true;
      };
    case 'list':
      return async () => {
        const n = (await listFiles(ozone, where.listPrefix)).length;
        if (n !== where.listKeys)
          throw new Error(`${n} keys listed under ${where.listPrefix}/, ${where.listKeys} there`);
        return true;
      };
    case 'rename':
      return async () => {
        const move = keys.nextRename();
        if (!move) return false;
        try {
          await ozone.renameKey(volume, bucket, move.from, move.to);
        } catch (err) {
          keys.renamed(move, false);
          throw err;
        }
        keys.renamed(move, true);
        return true;
      };
    case 'delete':
      return async () => {
        const name = keys.nextDelete();
        if (name === undefined) return false;
        await ozone.deleteKey(volume, bucket, name);
        keys.deleted(name);
        return true;
      };
  }
}

async function window(call: Extract<MetaCall, { op: 'window' }>): Promise<WindowSample> {
  const ozone = client;
  const keys = round;
  if (!ozone || !keys) throw new Error('window before init and begin');
  const run = step(ozone, keys, call.operation);
  const latenciesUs: number[] = [];
  let ops = 0;
  let errors = 0;
  let exhausted = false;
  let firstError: string | undefined;
  let lastEnd = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + call.windowMs;
  await Promise.all(
    Array.from({ length: call.workers }, async (_, w) => {
      while (performance.now() < deadline) {
        const began = performance.now();
        try {
          if (!(await run(w))) {
            exhausted = true;
            break;
          }
          ops++;
          latenciesUs.push((performance.now() - began) * 1000);
        } catch (err) {
          errors++;
          firstError ??= describe(err);
        }
        lastEnd = Math.max(lastEnd, performance.now());
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    ops,
    errors,
    elapsedMs: Math.max(lastEnd, started) - started,
    cpuMs: (used.user + used.system) / 1000,
    latenciesUs,
    ...(exhausted ? { exhausted } : {}),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

serveCalls(async (call: MetaCall): Promise<InitAnswer | WindowSample | VerifyCounts | object> => {
  switch (call.op) {
    case 'init': {
      client?.close();
      const login = call.target.login;
      const ozone = createOzoneClient({
        omAddress: call.target.omAddress,
        properties: call.target.properties,
        // On a secure cluster: the Kerberos user from its keytab (the process has no ticket
        // cache), and with TLS the CA and the name the datanodes' certificates carry.
        ...(login && { security: { kerberos: { principal: login.principal, keytab: login.keytab } } }),
        ...(login?.tls && { tls: login.tls }),
      });
      client = ozone;
      where = {
        volume: call.volume,
        bucket: call.bucket,
        listPrefix: call.listPrefix,
        listKeys: call.listKeys,
      };
      await ignoreExisting(() => ozone.createVolume(call.volume));
      await ignoreExisting(() =>
        ozone.createBucket(call.volume, call.bucket, { layout: 'FILE_SYSTEM_OPTIMIZED' }),
      );
      const bucket = await ozone.getBucket(call.volume, call.bucket);
      await prepareList(ozone);
      return { transport: ozone.omTransport, layout: bucket.layout };
    }
    case 'begin':
      round = new RoundKeys(call.prefix);
      return {};
    case 'window': {
      if (call.profilePath === undefined) return window(call);
      const { result, profile, profiles } = await runProfiled(call.profilePath, () => window(call));
      return { ...result, profile, topFunctions: topSelfFunctions(profiles[0]!, TOP_FUNCTIONS) };
    }
    case 'verify': {
      if (!client || !round) throw new Error('verify before init and begin');
      return round.verify(new Set(await listFiles(client, round.prefix, true)));
    }
    case 'close':
      client?.close();
      client = undefined;
      return {};
  }
});
