import { describe, expect, it } from '@jest/globals';
import { PROFILE_CATEGORIES, type ProfileCategory, type ProfileSummary } from './cpu-profile-summary.js';
import { categoryUsCell, profileCells, usPerUnitCell } from './profile-cells.js';

const summary = (busyMs: number, shares: Partial<Record<ProfileCategory, number>>): ProfileSummary => ({
  busyMs,
  shares: {
    ...(Object.fromEntries(PROFILE_CATEGORIES.map((c) => [c, 0])) as Record<ProfileCategory, number>),
    ...shares,
  },
});

describe('profile table cells', () => {
  it('gives CPU and busy time per unit in µs, — without units or a figure', () => {
    expect(usPerUnitCell(250, 2000)).toBe('125.0 µs');
    expect(usPerUnitCell(250, 0)).toBe('—');
    expect(usPerUnitCell(null, 2000)).toBe('—');
  });

  it('splits the busy time per unit by category, busiest first, under 1 µs left out', () => {
    // 100 ms over 1,000 requests: 100 µs each.
    const p = summary(100, {
      'fastpath server': 0.3,
      Fastify: 0.6,
      'crypto (Node)': 0.095,
      checksums: 0.005,
    });
    expect(categoryUsCell(p, 1000)).toBe('Fastify 60, fastpath server 30, crypto (Node) 10');
    expect(categoryUsCell(p, 0)).toBe('—');
  });

  it('makes the four cells of a row, the busiest functions by share, at most four', () => {
    const f = (functionName: string, share: number) => ({
      functionName,
      url: '',
      category: 'other Node and V8' as const,
      share,
    });
    expect(
      profileCells({
        units: 1000,
        cpuMs: 125,
        profile: summary(100, { 'fastpath client': 1 }),
        topFunctions: [f('a', 0.4), f('', 0.2), f('c', 0.1), f('d', 0.05), f('e', 0.01)],
      }),
    ).toEqual(['125.0 µs', '100.0 µs', 'fastpath client 100', 'a 40%, (anonymous) 20%, c 10%, d 5%']);
  });
});
