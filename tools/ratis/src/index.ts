// @fastpath/ratis-fixture: the one front door. Everything public is re-exported here by name.
export {
  startRatisGroup,
  type RatisGroup,
  type RatisPeer,
  type RatisPeerState,
  type RatisPeerStatus,
} from './ratis-group.js';
export {
  DEFAULT_RATIS_GROUP_OPTIONS,
  DEFAULT_RATIS_PROPERTIES,
  type RatisGroupOptions,
} from './ratis-group-options.js';
export {
  prepareRatisJars,
  type PrepareRatisJarsOptions,
  type RatisJars,
  type RatisJarsReport,
} from './ratis-jars.js';
export {
  APPEND_LOG_STATUS_QUERY,
  appendLogReadQuery,
  decodeAppendLogStatus,
  decodeAppendLogWriteReply,
  type AppendLogStatus,
  type AppendLogWriteReply,
} from './append-log-messages.js';
export {
  RatisFixtureStateError,
  RatisFixtureTimeoutError,
  RatisPeerCommandError,
  RatisJvmExitedError,
} from './ratis-fixture-errors.js';
export {
  DEFAULT_RATIS_JAVA_CLIENT_OPTIONS,
  startRatisJavaClient,
  type RatisJavaClient,
  type RatisJavaClientOptions,
  type RatisJavaLoad,
  type RatisJavaLoadResult,
} from './ratis-java-client.js';
