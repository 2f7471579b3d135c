// @fastpath/test-support: what fastpath's tests share, so that no package keeps its own copy.
export { gate, isPending, waitFor } from './wait-for.js';
export { expectError, type ExpectedError } from './expect-error.js';
export { remoteExceptionOf, type RemoteExceptionBody } from './remote-exception.js';
