import { InvalidOptionError } from '@fastpath/core';
import type { Client } from 'node-zookeeper-client';
import { checkWorkaround } from './internal/check-workaround.js';
import { ZooKeeperOperationError } from './zookeeper-client-errors.js';
import { zkGetChildren, zkRemove } from './zookeeper-promises.js';

/**
 * Deletes a znode and everything below it, at any depth (node-zookeeper-client's own
 * `removeRecursive` misses grandchildren). Znodes that vanish meanwhile (another client deleting
 * them) are not an error; a missing `path` is not either. Refuses the root `/`.
 *
 * @throws ZooKeeperOperationError for any other failure (e.g. a child created concurrently: NOT_EMPTY)
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 * @example
 * ```ts
 * await deleteRecursive(client, '/fastpath-test');
 * ```
 */
export async function deleteRecursive(client: Client, path: string): Promise<void> {
  if (typeof path !== 'string' || !path.startsWith('/') || path === '/' || path.endsWith('/')) {
    throw new InvalidOptionError(
      'path',
      `expected an absolute znode path other than "/", got "${String(path)}"`,
    );
  }
  checkWorkaround('delete-recursive');
  let children: string[];
  try {
    children = await zkGetChildren(client, path);
  } catch (err) {
    if (isNoNode(err)) return;
    throw err;
  }
  await Promise.all(children.map((child) => deleteRecursive(client, `${path}/${child}`)));
  try {
    await zkRemove(client, path);
  } catch (err) {
    if (!isNoNode(err)) throw err;
  }
}

function isNoNode(err: unknown): boolean {
  return err instanceof ZooKeeperOperationError && err.zkName === 'NO_NODE';
}
