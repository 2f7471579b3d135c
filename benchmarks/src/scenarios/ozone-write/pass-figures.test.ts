import { passFigures } from './pass-figures.js';

const MiB = 1024 * 1024;

describe('passFigures', () => {
  it('turns a pass into MiB/s, keys/s, per-key percentiles and CPU per MiB', () => {
    // 4 keys of 8 MiB in 2 s with 0.5 s of process CPU.
    const f = passFigures({
      keys: 4,
      errors: 0,
      bytes: 32 * MiB,
      wallNs: 2e9,
      cpuNs: 0.5e9,
      latenciesUs: [400_000, 100_000, 300_000, 200_000],
    });
    expect(f).toEqual({ mibPerSec: 16, keysPerSec: 2, p50Ms: 200, p99Ms: 400, cpuMsPerMiB: 500 / 32 });
  });

  it('has no figures for a pass that committed nothing, and refuses latencies that do not match the keys', () => {
    expect(
      passFigures({ keys: 0, errors: 3, bytes: 0, wallNs: 1e9, cpuNs: 1e8, latenciesUs: [] }),
    ).toBeNull();
    expect(() =>
      passFigures({ keys: 2, errors: 0, bytes: 2, wallNs: 1e9, cpuNs: 1, latenciesUs: [1] }),
    ).toThrow(/2 keys but 1 latencies/);
  });
});
