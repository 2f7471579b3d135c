// Where a reader's CPU went, from a V8 CPU profile (`.cpuprofile`, as `node --cpu-prof` or the
// inspector's Profiler writes it): each sample's own frame (self time) put in a category by the
// code it runs, as shares of the busy samples (idle samples left out).

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples?: number[];
  timeDeltas?: number[];
}

export const PROFILE_CATEGORIES = [
  'HTTP/2 and streams (Node)',
  'grpc-js',
  'garbage collection',
  'protobufjs',
  'checksums',
  'fastpath client',
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
  if (url.includes('ozone-fs-client/')) return 'fastpath client';
  if (url.includes('/benchmarks/')) return 'benchmark reader';
  if (
    /^node:(internal\/)?(http2|stream|net|_stream|internal\/streams|internal\/stream_base_commons|events|buffer|internal\/http2)/.test(
      url,
    )
  )
    return 'HTTP/2 and streams (Node)';
  return 'other Node and V8';
}

/** Self time per category over the profile's samples. */
export function summarizeCpuProfile(profile: CpuProfile): ProfileSummary {
  const categoryById = new Map<number, ProfileCategory | 'idle'>();
  for (const n of profile.nodes)
    categoryById.set(n.id, categoryOf(n.callFrame.functionName, n.callFrame.url));
  const micros = new Map<ProfileCategory, number>(PROFILE_CATEGORIES.map((c) => [c, 0]));
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  for (let i = 0; i < samples.length; i++) {
    const category = categoryById.get(samples[i] as number) ?? 'other Node and V8';
    // A sample's delta is the time since the one before: the time spent where this one was taken.
    const us = Math.max(0, deltas[i] ?? 0);
    if (category === 'idle') continue;
    busy += us;
    micros.set(category, (micros.get(category) ?? 0) + us);
  }
  const shares = Object.fromEntries(
    PROFILE_CATEGORIES.map((c) => [c, busy > 0 ? (micros.get(c) ?? 0) / busy : 0]),
  ) as Record<ProfileCategory, number>;
  return { busyMs: busy / 1000, shares };
}
