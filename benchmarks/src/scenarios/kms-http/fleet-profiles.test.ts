import { describe, expect, it } from '@jest/globals';
import { PROFILE_CATEGORIES, type ProfileCategory } from '../../harness/cpu-profile-summary.js';
import { parseMix } from '../../harness/mixed-load/operation-mix.js';
import {
  fleetProfileTable,
  instanceRequests,
  profiledCase,
  type ProfiledInstance,
} from './fleet-profiles.js';
import { estimateKmsHttpMs, profiledWindowMs } from './kms-http-estimate.js';
import { parseKmsHttpFlags } from './kms-http-settings.js';
import { kmsPasses } from './kms-passes.js';

describe('--profile-fleet', () => {
  it("profiles the fleet cases and the single instance's cookie case of the fleet's version, first repetition only", () => {
    const s = parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '3', '--profile-fleet'], false);
    const profiled = kmsPasses(s).flatMap((pass) =>
      pass.mixes.flatMap((mix) =>
        pass.versions
          .filter((v) => profiledCase(s, pass, v, mix, 0))
          .map(
            (v) =>
              `${pass.fleet ? `${pass.fleet.kind}${pass.fleet.instances}` : pass.creationAuth} ${mix.label} ${v}`,
          ),
      ),
    );
    expect(profiled).toEqual([
      'cookie 90:10 fixed',
      'shared1 90:10 fixed',
      'random1 90:10 fixed',
      'shared3 90:10 fixed',
      'random3 90:10 fixed',
      'mixed3 90:10 fixed',
    ]);
    const fleet = kmsPasses(s).find((p) => p.fleet)!;
    expect(profiledCase(s, fleet, 'fixed', parseMix('90:10'), 1)).toBe(false);
    expect(profiledCase({ profileFleet: false }, fleet, 'fixed', parseMix('90:10'), 0)).toBe(false);
    // 100:0 has no creation, no fleet row to compare with.
    const cookie = { part: 'kerberos' as const, creationAuth: 'cookie' as const };
    expect(profiledCase(s, cookie, 'fixed', parseMix('100:0'), 0)).toBe(false);
    expect(profiledCase(s, cookie, 'original', parseMix('90:10'), 0)).toBe(false);
    // The run's estimate has the six windows in it.
    const plain = parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '3'], false);
    expect(estimateKmsHttpMs(s) - estimateKmsHttpMs(plain)).toBe(6 * profiledWindowMs(s));
  });

  it("splits the window's requests as the balancer counted them over the call, all of them without a balancer", () => {
    expect(instanceRequests(900, 3, [10, 10, 10], [110, 110, 210])).toEqual([225, 225, 450]);
    expect(instanceRequests(900, 1, null, null)).toEqual([900]);
    expect(instanceRequests(900, 2, [5, 5], [5, 5])).toEqual([0, 0]);
  });

  const instance = (
    over: Partial<ProfiledInstance> & Pick<ProfiledInstance, 'fleet' | 'instance'>,
  ): ProfiledInstance => ({
    mix: '90:10',
    pid: 100 + over.instance,
    requests: 2000,
    cpuMs: 300,
    measuredUsPerRequest: 127.4,
    profile: {
      busyMs: 200,
      threads: 1,
      shares: {
        ...(Object.fromEntries(PROFILE_CATEGORIES.map((c) => [c, 0])) as Record<ProfileCategory, number>),
        'fastpath server': 0.5,
        Fastify: 0.3,
        'garbage collection': 0.2,
      },
    },
    topFunctions: [{ functionName: 'verify', url: '', category: 'fastpath server', share: 0.25 }],
    files: [],
    ...over,
  });

  it('gives a row per case and instance: the single instance first, then the fleets by size and kind, µs per request', () => {
    const table = fleetProfileTable([
      instance({ fleet: { instances: 3, kind: 'shared' }, instance: 1 }),
      instance({ fleet: { instances: 3, kind: 'shared' }, instance: 0 }),
      instance({ fleet: { instances: 1, kind: 'random' }, instance: 0 }),
      instance({ fleet: { instances: 3, kind: 'mixed' }, instance: 2 }),
      instance({ fleet: null, instance: 0, measuredUsPerRequest: 41, cpuMs: 100, requests: 4000 }),
    ]);
    expect(table.rows.map((r) => [r[1], r[2]])).toEqual([
      ['one instance (the cookie row)', '1'],
      ['fleet, a random secret per instance (1)', '1'],
      ['fleet, secrets shared through ZooKeeper (3)', '1'],
      ['fleet, secrets shared through ZooKeeper (3)', '2'],
      ["mixed fleet (Hadoop's KMS first), secrets shared (3)", '3'],
    ]);
    expect(table.columns).toHaveLength(table.rows[0]!.length);
    // 300 ms of CPU and 200 ms sampled over 2,000 requests: 150 and 100 µs each.
    expect(table.rows[2]!.slice(3)).toEqual([
      '127',
      '2000',
      '150.0 µs',
      '100.0 µs',
      'fastpath server 50, Fastify 30, garbage collection 20',
      'verify 25%',
    ]);
    expect(table.rows[0]!.slice(3, 7)).toEqual(['41', '4000', '25.0 µs', '50.0 µs']);
  });
});
