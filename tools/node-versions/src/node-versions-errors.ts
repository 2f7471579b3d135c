import { FastpathError } from '@fastpath/core';

/**
 * A Node line that is not tested (not in {@link NODE_LINES}), or a machine the npm registry has
 * no Node binary package for. The message lists what is available.
 *
 * @example
 * ```ts
 * try {
 *   resolveNodeLine('18');
 * } catch (err) {
 *   if (err instanceof NodeLineError) console.error(err.message); // names the tested lines
 * }
 * ```
 */
export class NodeLineError extends FastpathError {
  /** The line or platform asked for, as given. */
  readonly requested: string;
  constructor(
    code: 'ERR_NODE_LINE_UNKNOWN' | 'ERR_NODE_PLATFORM_UNSUPPORTED',
    requested: string,
    message: string,
  ) {
    super(code, message);
    this.requested = requested;
  }
}

/**
 * Fetching or unpacking a Node binary package failed (the registry did not answer, the tarball
 * was not what it said). Retriable: nothing is left half-unpacked in the cache.
 */
export class NodeFetchError extends FastpathError {
  /** The exact Node version being fetched. */
  readonly version: string;
  constructor(version: string, message: string, cause?: unknown) {
    super('ERR_NODE_FETCH_FAILED', message, { retriable: true, ...(cause === undefined ? {} : { cause }) });
    this.version = version;
  }
}
