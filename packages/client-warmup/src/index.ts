/**
 * `@fastpath/client-warmup`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/client-warmup
 */
export {
  currentWarmup,
  runWarmup,
  startWarmup,
  type WarmupHandle,
  type WarmupPlan,
  type WarmupStep,
  type WarmupStepOutcome,
  type WarmupStepState,
} from './start-warmup.js';
export {
  requireWithCodeCache,
  type CodeCacheOptions,
  type CodeCacheResult,
  type CodeCacheUse,
} from './require-with-code-cache.js';
