// Where a process's CPU went, from a V8 CPU profile (`.cpuprofile`, as `node --cpu-prof` or the
// inspector's Profiler writes it): each sample's own frame (self time) put in a category by the
// code it runs, as shares of the busy samples (idle samples left out). The categories cover the
// Ozone and Ratis clients and the KMS server alike; a profile leaves the others' at 0.

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples?: number[];
  timeDeltas?: number[];
}

export const PROFILE_CATEGORIES = [
  'HTTP/2 and streams (Node)',
  'grpc-js',
  'garbage collection',
  'protobufjs',
  'Buffer copies and allocation',
  'checksums',
  'Kerberos wrap and unwrap (GSS-API)',
  'fastpath client',
  'HTTP/1 (Node)',
  'Fastify',
  'crypto (Node)',
  'ZooKeeper client',
  'metrics (prom-client)',
  'fastpath server',
  'write syscalls (native)',
  'benchmark reader',
  'other Node and V8',
] as const;
export type ProfileCategory = (typeof PROFILE_CATEGORIES)[number];

export interface ProfileSummary {
  /** Busy (non-idle) time sampled, in ms. */
  busyMs: number;
  /** Share of the busy time per category, 0-1. */
  shares: Record<ProfileCategory, number>;
}

// Buffer's native halves, which appear without a script: copies (`copy`, `Buffer.concat`'s and
// `TypedArray.prototype.set`'s), fills and allocations.
const NATIVE_BUFFER_FUNCTIONS = new Set([
  'copy',
  'copyImpl',
  'set',
  'fill',
  'createUnsafeBuffer',
  'allocUnsafe',
]);

// Fastify and the packages it runs a request through (router, serializer, logger, hooks).
const FASTIFY_PACKAGE =
  /\/node_modules\/(fastify|@fastify\/[^/]+|find-my-way|avvio|fast-json-stringify|light-my-request|pino|abstract-logging|toad-cache|rfdc|secure-json-parse|process-warning|fast-querystring|fast-decode-uri-component|safe-regex2|ret|fast-uri|fastq|reusify)\//;

// The native halves of node:crypto's hashes and HMACs, which appear without a script.
const NATIVE_CRYPTO_FUNCTIONS = new Set([
  'Hash',
  'Hmac',
  'digest',
  'update',
  'timingSafeEqual',
  'randomFillSync',
]);

// The native halves of a socket's or a file's write (libuv's write and writev system calls, which
// on a loopback socket also deliver the bytes to the reader): their callers are Node's stream
// code whatever wrote, so they are counted apart rather than in 'other Node and V8'.
const NATIVE_WRITE_FUNCTIONS = new Set([
  'writeBuffer',
  'writev',
  'writeString',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'writeUcs2String',
]);

/** The category of one frame (the function a sample was taken in). */
export function categoryOf(functionName: string, url: string): ProfileCategory | 'idle' {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (url.includes('@grpc/grpc-js')) return 'grpc-js';
  if (url.includes('protobufjs') || url.includes('/long/') || url.endsWith('protos.cjs')) return 'protobufjs';
  // The native CRC functions appear under their own names, without a script.
  if (
    url.includes('@node-rs/crc32') ||
    url.includes('/checksum.') ||
    (url === '' && /^crc32c?$/.test(functionName))
  )
    return 'checksums';
  if (
    url === 'node:buffer' ||
    url === 'node:internal/buffer' ||
    (url === '' && NATIVE_BUFFER_FUNCTIONS.has(functionName))
  )
    return 'Buffer copies and allocation';
  if (url.includes('/sasl/gss-native.')) return 'Kerberos wrap and unwrap (GSS-API)';
  if (url.includes('ozone-fs-client/') || url.includes('ratis-client/')) return 'fastpath client';
  if (/^node:(_http_|http$|internal\/http$)/.test(url)) return 'HTTP/1 (Node)';
  if (FASTIFY_PACKAGE.test(url)) return 'Fastify';
  if (
    url === 'node:crypto' ||
    url.startsWith('node:internal/crypto/') ||
    (url === '' && NATIVE_CRYPTO_FUNCTIONS.has(functionName))
  )
    return 'crypto (Node)';
  // Hadoop's ZooKeeper client from npm; fastpath's own, run from its sources (bundled, it is the server's).
  if (url.includes('/node-zookeeper-client/') || url.includes('/zookeeper-client/src/'))
    return 'ZooKeeper client';
  if (url.includes('/prom-client/')) return 'metrics (prom-client)';
  // fastpath-kms from its sources, or the one-file bundle the benchmarks build of it (its
  // `dist/cli-main.js`, which holds fastpath's packages the server imports).
  if (url.includes('/kms-server/') || url.includes('/token-manager/') || url.endsWith('/dist/cli-main.js'))
    return 'fastpath server';
  if (url === '' && NATIVE_WRITE_FUNCTIONS.has(functionName)) return 'write syscalls (native)';
  if (url.includes('/benchmarks/')) return 'benchmark reader';
  if (
    /^node:(internal\/)?(http2|stream|net|_stream|internal\/streams|internal\/stream_base_commons|events|buffer|internal\/http2)/.test(
      url,
    )
  )
    return 'HTTP/2 and streams (Node)';
  return 'other Node and V8';
}

/**
 * The time a sample stands for: its delta, the time since the sample before, spent where this one
 * was taken. The first sample's delta runs from the profiler's start instead, which on a profiler
 * started through the inspector is that start's own latency (tens of ms, charged to the
 * inspector's `dispatch`): it stands for nothing and counts as nothing.
 */
function sampleMicros(deltas: readonly number[], i: number): number {
  return i === 0 ? 0 : Math.max(0, deltas[i] ?? 0);
}

// The modules that call a native addon of fastpath's own (N-API). V8 names every N-API function
// after the first one the process created (they share one trampoline): in a client that loaded
// @node-rs/crc32 first, GSS-API's wrap shows as `crc32c`. A native frame called from one of these
// is taken for its caller's, so it lands in the caller's category under the caller's name.
const NATIVE_ADDON_CALLERS = ['/sasl/gss-native.'];

/**
 * Each node's frame as the summaries count it: its own, except a native frame (no script) whose
 * caller is one of {@link NATIVE_ADDON_CALLERS}, which becomes `<caller> (native)` in the
 * caller's script.
 */
function sampledFrames(profile: CpuProfile): Map<number, { functionName: string; url: string }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const frames = new Map<number, { functionName: string; url: string }>();
  for (const n of profile.nodes) {
    const caller = byId.get(parentOf.get(n.id) ?? -1)?.callFrame;
    const viaAddon =
      n.callFrame.url === '' &&
      caller !== undefined &&
      NATIVE_ADDON_CALLERS.some((m) => caller.url.includes(m));
    frames.set(
      n.id,
      viaAddon ? { functionName: `${caller.functionName} (native)`, url: caller.url } : n.callFrame,
    );
  }
  return frames;
}

/** Self time per category over the profile's samples. */
export function summarizeCpuProfile(profile: CpuProfile): ProfileSummary {
  const categoryById = new Map<number, ProfileCategory | 'idle'>();
  for (const [id, frame] of sampledFrames(profile))
    categoryById.set(id, categoryOf(frame.functionName, frame.url));
  const micros = new Map<ProfileCategory, number>(PROFILE_CATEGORIES.map((c) => [c, 0]));
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  for (let i = 0; i < samples.length; i++) {
    const category = categoryById.get(samples[i] as number) ?? 'other Node and V8';
    const us = sampleMicros(deltas, i);
    if (category === 'idle') continue;
    busy += us;
    micros.set(category, (micros.get(category) ?? 0) + us);
  }
  const shares = Object.fromEntries(
    PROFILE_CATEGORIES.map((c) => [c, busy > 0 ? (micros.get(c) ?? 0) / busy : 0]),
  ) as Record<ProfileCategory, number>;
  return { busyMs: busy / 1000, shares };
}

/** One function's self time in a profile. */
export interface ProfileFunction {
  functionName: string;
  url: string;
  category: ProfileCategory;
  /** Share of the busy time, 0-1. */
  share: number;
}

/** The `count` functions with the most self time (same name and script summed), busiest first. */
export function topSelfFunctions(profile: CpuProfile, count: number): ProfileFunction[] {
  const frameById = sampledFrames(profile);
  const micros = new Map<string, { functionName: string; url: string; us: number }>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  for (let i = 0; i < samples.length; i++) {
    const frame = frameById.get(samples[i] as number);
    if (!frame || categoryOf(frame.functionName, frame.url) === 'idle') continue;
    const us = sampleMicros(deltas, i);
    if (us === 0) continue;
    busy += us;
    const key = `${frame.functionName}\u0000${frame.url}`;
    const entry = micros.get(key) ?? { functionName: frame.functionName, url: frame.url, us: 0 };
    entry.us += us;
    micros.set(key, entry);
  }
  return [...micros.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, count)
    .map((e) => ({
      functionName: e.functionName,
      url: e.url,
      category: categoryOf(e.functionName, e.url) as ProfileCategory,
      share: busy > 0 ? e.us / busy : 0,
    }));
}

/** The categories of a summary, busiest first, as one line (`protobufjs 31%, grpc-js 12%, …`); shares under 1% left out. */
export function formatProfileShares(summary: ProfileSummary): string {
  return [...PROFILE_CATEGORIES]
    .filter((c) => summary.shares[c] >= 0.01)
    .sort((a, b) => summary.shares[b] - summary.shares[a])
    .map((c) => `${c} ${Math.round(summary.shares[c] * 100)}%`)
    .join(', ');
}
