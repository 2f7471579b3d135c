import { DEFAULT_OZONE_CLIENT_CONFIG } from '../../ozone-client-config.js';
import { parseEcReplicationConfig } from '../ec/ec-stripe-layout.js';
import { canEnableHsync, flushDue, hsyncRefusal } from './hsync-policy.js';

describe('hsync policy', () => {
  it('is hsync only with both client settings on, as OzoneFSUtils#canEnableHsync', () => {
    for (const [hbaseEnhancementsAllowed, hsyncEnabled, expected] of [
      [false, false, false],
      [false, true, false],
      [true, false, false],
      [true, true, true],
    ] as const)
      expect(canEnableHsync({ hbaseEnhancementsAllowed, hsyncEnabled })).toBe(expected);
    expect(canEnableHsync(DEFAULT_OZONE_CLIENT_CONFIG)).toBe(false);
  });

  it('refuses a single replica and erasure coding, and accepts three replicas', () => {
    expect(hsyncRefusal({ type: 'RATIS', factor: 'ONE' })).toMatch(/replication factor = 1 <= 1/);
    expect(hsyncRefusal({ type: 'RATIS', factor: 'THREE' })).toBeUndefined();
    expect(hsyncRefusal({ type: 'EC', config: parseEcReplicationConfig('rs-3-2-1024k') })).toMatch(
      /erasure-coded/,
    );
  });

  it("flushes with the flush delay only once a chunk's worth is unflushed, without it always", () => {
    const chunk = DEFAULT_OZONE_CLIENT_CONFIG.chunkSizeBytes;
    expect(flushDue({ flushDelay: true, chunkSizeBytes: chunk }, chunk - 1)).toBe(false);
    expect(flushDue({ flushDelay: true, chunkSizeBytes: chunk }, chunk)).toBe(true);
    expect(flushDue({ flushDelay: false, chunkSizeBytes: chunk }, 0)).toBe(true);
  });
});
