// What the benchmark and the profile probe it loads into a fastpath-kms (profile-probe.ts) agree
// on: where the probe writes, the signal that starts and stops its profiler, and the files'
// names. Constants only, so that the probe's bundle takes nothing else along.

/** The environment variable naming the probe's directory; without it the probe does nothing. */
export const PROFILE_PROBE_DIR_ENV = 'FASTPATH_BENCH_PROFILE_DIR';

/**
 * The signal that starts the profiler and, the next time, stops it. SIGURG: its default action
 * is to be ignored, so one sent to a process without the probe ends nothing, and neither Node nor
 * the server uses it (V8's sampler uses SIGPROF; the event-loop probe, SIGUSR2).
 */
export const PROFILE_PROBE_SIGNAL = 'SIGURG';

/** The probe's module, relative to the benchmarks' source folder (for `ctx.sourcePath`). */
export const PROFILE_PROBE_MODULE = 'scenarios/kms-http/profile-probe.ts';
