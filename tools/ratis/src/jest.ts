// @fastpath/ratis-fixture/jest: the group as a suite's setup, in jest's hooks. A subpath of its
// own so that the front door stays free of test-runner globals (the benchmark uses the group too).
export {
  DEFAULT_USE_RATIS_GROUP_OPTIONS,
  useRatisGroup,
  type TestRatisGroup,
  type UseRatisGroupOptions,
} from './use-ratis-group.js';
