// The one Ratis-backed test setup: a real group for the suite, every peer running again before
// each test, stopped after the suite.
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { startRatisGroup, type RatisGroup } from './ratis-group.js';
import type { RatisGroupOptions } from './ratis-group-options.js';

/** Options of {@link useRatisGroup}. */
export interface UseRatisGroupOptions {
  /** Options of the group (`peers`, `heapMb`, election timeouts, …). Default: the fixture's. */
  group?: RatisGroupOptions;
  /**
   * Before each test, resume paused peers and restart stopped ones, so that a test's faults do
   * not leak into the next. Default `true`.
   */
  restoreBeforeEach?: boolean;
  /** Bound of the suite's start and stop and of each restore (jest hook timeouts), ms. Default 180 000. */
  hookTimeoutMs?: number;
}

/** Defaults of {@link UseRatisGroupOptions}. */
export const DEFAULT_USE_RATIS_GROUP_OPTIONS = Object.freeze({
  restoreBeforeEach: true,
  hookTimeoutMs: 180_000,
});

/** What {@link useRatisGroup} gives a suite. Read it inside hooks and tests, once the suite started. */
export interface TestRatisGroup {
  /** The running group, for its `groupId`, `peers` and faults. */
  readonly group: RatisGroup;
}

/**
 * Starts a real Ratis group for the enclosing `describe` (or file) in `beforeAll` and stops it in
 * `afterAll`. With `restoreBeforeEach`, every peer runs again before each test (paused ones are
 * resumed, stopped ones restarted on their storage).
 *
 * @example
 * ```ts
 * import { useRatisGroup } from '@fastpath/ratis-fixture/jest';
 *
 * const ratis = useRatisGroup();
 *
 * it('follows a new leader', async () => {
 *   await ratis.group.stopPeer(await ratis.group.leaderId());
 * });
 * ```
 */
export function useRatisGroup(options: UseRatisGroupOptions = {}): TestRatisGroup {
  const d = DEFAULT_USE_RATIS_GROUP_OPTIONS;
  const hookTimeoutMs = options.hookTimeoutMs ?? d.hookTimeoutMs;
  let group: RatisGroup | undefined;
  beforeAll(async () => {
    group = await startRatisGroup(options.group);
  }, hookTimeoutMs);
  if (options.restoreBeforeEach ?? d.restoreBeforeEach) {
    beforeEach(async () => {
      if (group === undefined) return;
      for (const peer of group.peers) {
        const { state } = group.peerStatus(peer.id);
        if (state === 'paused') await group.resumePeer(peer.id);
        if (state === 'stopped') await group.restartPeer(peer.id);
      }
    }, hookTimeoutMs);
  }
  afterAll(async () => {
    await group?.stop();
    group = undefined;
  }, hookTimeoutMs);
  return {
    get group() {
      if (group === undefined)
        throw new Error('useRatisGroup: the group is read before beforeAll started it');
      return group;
    },
  };
}
