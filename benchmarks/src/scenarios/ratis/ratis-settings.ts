import { integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';

/** The write sizes of the scenario, by name. */
export const WRITE_SIZES = Object.freeze({ '1KiB': 1024, '64KiB': 64 * 1024, '4MiB': 4 * 1024 * 1024 });
export type WriteSize = keyof typeof WRITE_SIZES;
export const WRITE_SIZE_NAMES = Object.freeze(Object.keys(WRITE_SIZES) as WriteSize[]);

/** The settings of one run of the Ratis scenario, resolved from flags and `--quick`. */
export interface RatisSettings {
  sizes: WriteSize[];
  /** Measured rounds per size; each round runs both clients, in alternating order. */
  rounds: number;
  /** Writes of each client in one round, per size. */
  writes: Record<WriteSize, number>;
  /**
   * Writes outstanding at most, for both clients (Ozone bounds a Ratis client at 32,
   * `hdds.ratis.raft.client.async.outstanding-requests.max`); capped per size by `maxOutstandingMiB`.
   */
  window: number;
  /**
   * Bytes outstanding at most, MiB: Ozone's writer holds at most `ozone.client.stream.buffer.max.size`
   * (32 MiB) unacknowledged, so 4 MiB chunks go 8 at a time.
   */
  maxOutstandingMiB: number;
  /** Java heap of each peer of the group, MiB (a leader holds a window of 4 MiB writes). */
  peerHeapMb: number;
  /** After the rounds, one more fastpath load per size under the CPU profiler (not measured). */
  profile: boolean;
}

export const DEFAULT_RATIS_SETTINGS: Readonly<RatisSettings> = Object.freeze({
  sizes: [...WRITE_SIZE_NAMES],
  rounds: 5,
  writes: { '1KiB': 4000, '64KiB': 1000, '4MiB': 40 },
  window: 32,
  maxOutstandingMiB: 32,
  peerHeapMb: 512,
  profile: false,
});

export const QUICK_RATIS_SETTINGS: Readonly<Pick<RatisSettings, 'rounds' | 'writes'>> = Object.freeze({
  rounds: 2,
  writes: { '1KiB': 400, '64KiB': 100, '4MiB': 8 },
});

export const RATIS_FLAGS = {
  sizes: {
    type: 'string',
    value: '<list>',
    description: `write sizes, comma-separated (default ${WRITE_SIZE_NAMES.join(',')})`,
  },
  rounds: {
    type: 'string',
    value: '<n>',
    description: `measured rounds per size (default ${DEFAULT_RATIS_SETTINGS.rounds}; --quick ${QUICK_RATIS_SETTINGS.rounds})`,
  },
  'writes-scale': {
    type: 'string',
    value: '<percent>',
    description:
      `writes per round in percent of the profile's (default 100: ` +
      `${WRITE_SIZE_NAMES.map((s) => `${DEFAULT_RATIS_SETTINGS.writes[s]} of ${s}`).join(', ')}; --quick ` +
      `${WRITE_SIZE_NAMES.map((s) => QUICK_RATIS_SETTINGS.writes[s]).join(', ')})`,
  },
  window: {
    type: 'string',
    value: '<n>',
    description: `writes outstanding at most, both clients (default ${DEFAULT_RATIS_SETTINGS.window})`,
  },
  'max-outstanding-mib': {
    type: 'string',
    value: '<MiB>',
    description: `bytes outstanding at most; caps the window of large writes (default ${DEFAULT_RATIS_SETTINGS.maxOutstandingMiB})`,
  },
  'peer-heap-mb': {
    type: 'string',
    value: '<MiB>',
    description: `Java heap of each Ratis peer (default ${DEFAULT_RATIS_SETTINGS.peerHeapMb})`,
  },
  profile: {
    type: 'boolean',
    description:
      "after the rounds, one more load of fastpath's client per size under the CPU profiler, not measured: profiles/<size>-fastpath.cpuprofile",
  },
} as const;

/** Parses the scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseRatisFlags(args: readonly string[], quick: boolean): RatisSettings {
  const flags = parseScenarioFlags('ratis', args, RATIS_FLAGS);
  const base = quick ? { ...DEFAULT_RATIS_SETTINGS, ...QUICK_RATIS_SETTINGS } : DEFAULT_RATIS_SETTINGS;
  const scale = integerFlag('ratis', 'writes-scale', flags['writes-scale'], 100, { min: 1, max: 10_000 });
  const writes = Object.fromEntries(
    WRITE_SIZE_NAMES.map((s) => [s, Math.max(1, Math.round((base.writes[s] * scale) / 100))]),
  ) as Record<WriteSize, number>;
  return {
    sizes: listFlag('ratis', 'sizes', flags.sizes, base.sizes, WRITE_SIZE_NAMES),
    rounds: integerFlag('ratis', 'rounds', flags.rounds, base.rounds, { min: 1, max: 1000 }),
    writes,
    window: integerFlag('ratis', 'window', flags.window, base.window, { min: 1, max: 1024 }),
    maxOutstandingMiB: integerFlag(
      'ratis',
      'max-outstanding-mib',
      flags['max-outstanding-mib'],
      base.maxOutstandingMiB,
      { min: 1, max: 1024 },
    ),
    peerHeapMb: integerFlag('ratis', 'peer-heap-mb', flags['peer-heap-mb'], base.peerHeapMb, {
      min: 128,
      max: 16_384,
    }),
    profile: flags.profile === true,
  };
}

/** The window of one size: `window`, or fewer when that many writes would exceed `maxOutstandingMiB`. */
export function windowFor(
  settings: Pick<RatisSettings, 'window' | 'maxOutstandingMiB'>,
  sizeBytes: number,
): number {
  const byBytes = Math.floor((settings.maxOutstandingMiB * 1024 * 1024) / sizeBytes);
  return Math.max(1, Math.min(settings.window, byBytes));
}
