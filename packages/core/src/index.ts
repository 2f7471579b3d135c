// @fastpath/core: the one front door. Everything public is re-exported here by name.
export {
  FastpathError,
  InvalidOptionError,
  LockAbortedError,
  LockStateError,
  LockTimeoutError,
  type FastpathErrorOptions,
} from './fastpath-error.js';
export { Redacted } from './redacted.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { checkInteger, checkNonEmptyString, checkNumber, checkOneOf } from './option-checks.js';
