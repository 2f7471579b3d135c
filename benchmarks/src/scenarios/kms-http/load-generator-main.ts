// The load generator: a separate process (started with startChild) so that it does not share an
// event loop with the server it measures. One call = one closed-loop run; the answer carries
// counts and HDR latencies, never token material.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { loadKerberos, type KerberosModule } from '@fastpath/hadoop-common';
import { serveCalls } from '../../harness/index.js';
import { BlockScheduler } from '../../harness/mixed-load/block-scheduler.js';
import { GoodputWindow, type WindowSummary } from '../../harness/mixed-load/goodput-window.js';
import { parseMix, seededRandom, type KmsOperation } from '../../harness/mixed-load/operation-mix.js';
import { probedPids } from './event-loop-probe.js';
import { groupsCpuSeconds } from '../../harness/process-cpu.js';
import { PROFILE_PROBE_SIGNAL } from './profile-probe-protocol.js';

export interface LoadInput {
  /** `http://127.0.0.1:<port>` of the KMS (or of the baseline server). */
  origin: string;
  /** `kms`: metadata reads with a delegation token and token creations; `baseline`: the trivial route only. */
  target: 'kms' | 'baseline';
  mix: string;
  concurrency: number;
  warmupMs: number;
  measureMs: number;
  seed: number;
  keyName: string;
  /** The delegation token (URL string) that authenticates verification requests. */
  verifyToken: string;
  /** The user that asks for new tokens (simple authentication; with Kerberos, the ticket cache's). */
  creator: string;
  /**
   * How creations authenticate: `simple` (`user.name`), `spnego` (a fresh Kerberos exchange per
   * creation: `Authorization: Negotiate` on the request itself) or `cookie` (the `hadoop.auth`
   * cookie of one Kerberos log-in before the load). Default `simple`.
   */
  creationAuth?: 'simple' | 'spnego' | 'cookie';
  /** Abandon a request after this long (counted as an error), in ms. */
  requestTimeoutMs: number;
  /**
   * Read at the start and at the end of the measured window, by this process so that the
   * boundaries are the window's own: the CPU of each named group of process trees
   * (`server`, `zookeeper`), and a SIGUSR2 to each process that loaded the event-loop probe
   * writing to one of `probeDirs` (it snapshots on it; only those, as SIGUSR2 ends a process
   * without a listener, and a JVM uses it itself); and the profile probe's signal to each process
   * that loaded it writing to one of `profileDirs`, which starts its profiler at the start and
   * stops it at the end (profile-probe.ts).
   */
  watch?: {
    cpu: Record<string, readonly number[]>;
    probeDirs: readonly string[];
    profileDirs?: readonly string[];
  };
}

/** CPU over the measured window, read at its boundaries. */
export interface WindowCpu {
  /** Between the two readings (the window, give or take a timer's lateness). */
  intervalMs: number;
  /** CPU seconds of each watched group; null where /proc was not readable. */
  seconds: Record<string, number | null>;
  /** This load generator's own CPU seconds (user + system). */
  generatorSeconds: number;
}

export interface LoadOutput {
  window: WindowSummary;
  latency: Record<KmsOperation, string>;
  /** Every creation that succeeded, inside the window or not: what the DT_* znode count must grow by. */
  createdTotal: number;
  submitted: Record<KmsOperation, number>;
  completeBlocks: number;
  tailSubmissions: Record<KmsOperation, number>;
  /**
   * With `cookie`: new Kerberos log-ins in the measured window after a creation's cookie was refused (401), as Hadoop's
   * client logs in again; behind a balancer, the instance that issued the cookie was not the one asked.
   */
  reauthentications: number;
  /** The generator's event-loop delay p99 beyond the 1 ms resolution of its monitor. */
  generatorEventLoopP99Ms: number;
  windowCpu: WindowCpu;
}

interface Boundary {
  atMs: number;
  groups: Record<string, number | null>;
  ownMicros: number;
}

/** Reads the watched CPU and signals the probes: one window boundary. */
function boundary(watch: LoadInput['watch']): Boundary {
  const signal = (dirs: readonly string[] | undefined, name: NodeJS.Signals): void => {
    for (const dir of dirs ?? []) {
      for (const pid of probedPids(dir)) {
        try {
          process.kill(pid, name);
        } catch {
          // gone: the window figures leave it out
        }
      }
    }
  };
  signal(watch?.probeDirs, 'SIGUSR2');
  signal(watch?.profileDirs, PROFILE_PROBE_SIGNAL);
  const own = process.cpuUsage();
  return {
    atMs: performance.now(),
    groups: groupsCpuSeconds(watch?.cpu ?? {}),
    ownMicros: own.user + own.system,
  };
}

serveCalls<LoadInput, LoadOutput>(async (input) => {
  const pool = new Pool(input.origin, {
    connections: input.concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: input.requestTimeoutMs,
    bodyTimeout: input.requestTimeoutMs,
  });
  const scheduler = new BlockScheduler(parseMix(input.mix), seededRandom(input.seed));
  const startMs = performance.now();
  const measureStartMs = startMs + input.warmupMs;
  const cutoffMs = measureStartMs + input.measureMs;
  const window = new GoodputWindow(measureStartMs, cutoffMs);
  const submitted = { verify: 0, create: 0 };
  let createdTotal = 0;
  const metadataPath = `/kms/v1/key/${encodeURIComponent(input.keyName)}/_metadata`;
  const creationAuth = input.creationAuth ?? 'simple';
  const renewer = `renewer=${encodeURIComponent(input.creator)}`;
  const creatorQuery =
    creationAuth === 'simple' ? `user.name=${encodeURIComponent(input.creator)}&${renewer}` : renewer;
  const kerberos = creationAuth === 'simple' ? undefined : await loadKerberos();
  // A fresh initiator context and its first token: one Kerberos exchange (the server accepts it
  // on the creation request itself, as Hadoop's token handler does).
  const negotiate = async (): Promise<string> => {
    const client = await (kerberos as KerberosModule).initializeClient(
      `HTTP@${new URL(input.origin).hostname}`,
      { mechOID: (kerberos as KerberosModule).GSS_MECH_OID_KRB5 },
    );
    return `Negotiate ${await client.step('')}`;
  };
  let cookie: string | undefined;
  if (creationAuth === 'cookie') {
    // The log-in Hadoop's client makes: OPTIONS with the exchange, on a path that creates nothing
    // (a token request would add a token the creation count does not expect).
    const login = await fetch(`${input.origin}/kms/v1/keys/names`, {
      method: 'OPTIONS',
      headers: { authorization: await negotiate() },
    });
    await login.arrayBuffer();
    cookie = login.headers.get('set-cookie')?.split(';')[0];
    if (!login.ok || cookie === undefined) {
      throw new Error(`the Kerberos log-in answered ${login.status} without a hadoop.auth cookie`);
    }
  }
  let reauthentications = 0;
  const creationHeaders = async (): Promise<Record<string, string>> => {
    if (creationAuth === 'spnego') return { authorization: await negotiate() };
    if (creationAuth === 'cookie') return { cookie: cookie as string };
    return {};
  };
  // 1 ms resolution: the histogram records the interval between ticks, so a 10 ms one reads
  // 10 ms of "delay" on an idle loop.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  let windowStart: Boundary | undefined;
  let windowEnd: Boundary | undefined;
  const startTimer = setTimeout(
    () => (windowStart = boundary(input.watch)),
    measureStartMs - performance.now(),
  );
  const endTimer = setTimeout(() => (windowEnd = boundary(input.watch)), cutoffMs - performance.now());

  const send = async (op: KmsOperation): Promise<{ ok: boolean; error?: string }> => {
    const request =
      input.target === 'baseline'
        ? { path: '/baseline', method: 'GET' as const }
        : op === 'verify'
          ? {
              path: metadataPath,
              method: 'GET' as const,
              headers: { 'x-hadoop-delegation-token': input.verifyToken },
            }
          : {
              path: `/kms/v1/?op=GETDELEGATIONTOKEN&${creatorQuery}`,
              method: 'GET' as const,
              headers: await creationHeaders(),
            };
    let response = await pool.request(request);
    if (response.statusCode === 401 && op === 'create' && creationAuth === 'cookie') {
      // The cookie was not honoured (another instance's secret): log in again on the request
      // itself, as Hadoop's client does, and keep the new cookie for the next creations.
      await response.body.arrayBuffer();
      // Counted in the measured window only, as the creations it is read against are.
      const now = performance.now();
      if (now >= measureStartMs && now < cutoffMs) reauthentications++;
      response = await pool.request({ ...request, headers: { authorization: await negotiate() } });
      const fresh = hadoopAuthCookie(response.headers['set-cookie']);
      if (fresh !== undefined) cookie = fresh;
    }
    const text = await response.body.text();
    if (response.statusCode !== 200)
      return { ok: false, error: `HTTP ${response.statusCode} ${text.slice(0, 160)}` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, error: 'response body is not JSON' };
    }
    // Every response is checked for the shape its path must return, so a server that answers
    // fast with the wrong thing does not count.
    if (input.target === 'baseline') return { ok: typeof (body as { mac?: unknown }).mac === 'string' };
    if (op === 'verify') {
      const ok = (body as { name?: unknown }).name === input.keyName;
      return ok ? { ok } : { ok, error: 'metadata of another key' };
    }
    const url = (body as { Token?: { urlString?: unknown } }).Token?.urlString;
    const ok = typeof url === 'string' && url.length > 10;
    if (ok) createdTotal++;
    return ok ? { ok } : { ok, error: 'no Token.urlString in the answer' };
  };

  const loop = async (): Promise<void> => {
    while (performance.now() < cutoffMs) {
      const op = scheduler.next();
      submitted[op]++;
      const began = performance.now();
      let outcome: { ok: boolean; error?: string };
      try {
        outcome = await send(op);
      } catch (error) {
        outcome = { ok: false, error: (error as Error).message };
      }
      window.record(op, outcome.ok, began, performance.now(), outcome.error);
    }
  };
  try {
    await Promise.all(Array.from({ length: input.concurrency }, loop));
  } finally {
    loopDelay.disable();
    clearTimeout(startTimer);
    clearTimeout(endTimer);
    await pool.close();
  }
  // The loops end at the cutoff, before or after the end timer fires: read it now if not yet.
  windowStart ??= boundary(input.watch);
  windowEnd ??= boundary(input.watch);
  const windowCpu: WindowCpu = {
    intervalMs: windowEnd.atMs - windowStart.atMs,
    seconds: Object.fromEntries(
      Object.keys(input.watch?.cpu ?? {}).map((name) => {
        const a = windowStart?.groups[name];
        const b = windowEnd?.groups[name];
        return [name, a == null || b == null ? null : b - a];
      }),
    ),
    generatorSeconds: (windowEnd.ownMicros - windowStart.ownMicros) / 1e6,
  };
  return {
    window: window.summary(),
    latency: { verify: window.latency.verify.toBase64(), create: window.latency.create.toBase64() },
    createdTotal,
    submitted,
    completeBlocks: scheduler.completeBlocks,
    tailSubmissions: scheduler.tailSubmissions,
    generatorEventLoopP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - 1),
    windowCpu,
    reauthentications,
  };
});

/** The non-empty `hadoop.auth=…` of an answer's Set-Cookie headers, without its attributes. */
function hadoopAuthCookie(header: string | string[] | undefined): string | undefined {
  const all = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return all
    .map((c) => c.split(';')[0]?.trim() ?? '')
    .find((c) => c.startsWith('hadoop.auth=') && c !== 'hadoop.auth=' && c !== 'hadoop.auth=""');
}
