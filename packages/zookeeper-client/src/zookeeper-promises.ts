import zookeeper from 'node-zookeeper-client';
import type { ACL, Client, Stat } from 'node-zookeeper-client';
import { ZooKeeperOperationError } from './zookeeper-client-errors.js';

// Promise forms of the node-zookeeper-client calls the fixture and its users need. Failures become
// ZooKeeperOperationError with the numeric ZooKeeper code, the path and the library error as cause.

type Data = Buffer | string;

function toBuffer(data: Data | null | undefined): Buffer | null {
  if (data === null || data === undefined) return null;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

function wrap(operation: string, path: string, error: unknown): ZooKeeperOperationError {
  const e = error as { getCode?: () => number; getName?: () => string; code?: unknown; name?: unknown };
  const code = typeof e.getCode === 'function' ? e.getCode() : typeof e.code === 'number' ? e.code : 0;
  const name = typeof e.getName === 'function' ? e.getName() : typeof e.name === 'string' ? e.name : 'ERROR';
  return new ZooKeeperOperationError(operation, path, code, name, error);
}

/**
 * Creates a znode and resolves with the created path (it differs from `path` for sequential
 * modes). `mode` is a `CreateMode` value of node-zookeeper-client. Default: persistent, no data,
 * open to everyone (`world:anyone`); `acl` gives it another ACL (e.g. {@link saslOwnerAcl}).
 *
 * @example
 * ```ts
 * await zkCreate(client, '/app');
 * const seq = await zkCreate(client, '/app/item-', 'x', zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
 * ```
 */
export function zkCreate(
  client: Client,
  path: string,
  data?: Data | null,
  mode: number = zookeeper.CreateMode.PERSISTENT,
  acl?: readonly ACL[],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const buffer = toBuffer(data);
    const done = (error: unknown, created: string): void => {
      if (error) reject(wrap('create', path, error));
      else resolve(created);
    };
    if (acl !== undefined && buffer === null) client.create(path, [...acl], mode, done);
    else if (acl !== undefined) client.create(path, buffer as Buffer, [...acl], mode, done);
    else if (buffer === null) client.create(path, mode, done);
    else client.create(path, buffer, mode, done);
  });
}

/**
 * Creates `path` and any missing parents (persistent, no data); no error when it exists. Each
 * znode created is open to everyone, or gets `acl` when given.
 *
 * @example
 * ```ts
 * await zkMkdirp(client, '/fastpath/tokens');
 * ```
 */
export function zkMkdirp(client: Client, path: string, acl?: readonly ACL[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = (error: unknown, created: string): void => {
      if (error) reject(wrap('mkdirp', path, error));
      else resolve(created);
    };
    if (acl !== undefined) client.mkdirp(path, [...acl], zookeeper.CreateMode.PERSISTENT, done);
    else client.mkdirp(path, done);
  });
}

/**
 * Reads a znode's data (an empty buffer for a znode created without data) and its `Stat`.
 *
 * @example
 * ```ts
 * const { data, stat } = await zkGetData(client, '/app');
 * ```
 */
export function zkGetData(
  client: Client,
  path: string,
): Promise<{
  /** The znode's data; an empty buffer for a znode created without data. */
  data: Buffer;
  /** The znode's `Stat`: pass `stat.version` to {@link zkSetData} for a conditional write. */
  stat: Stat;
}> {
  return new Promise((resolve, reject) => {
    client.getData(path, (error, data, stat) => {
      if (error) reject(wrap('getData', path, error));
      else resolve({ data: data ?? Buffer.alloc(0), stat });
    });
  });
}

/**
 * Writes a znode's data if its version still is `version` (-1, the default, matches any) and
 * resolves with the new `Stat`. A version mismatch rejects with `zkName` `BAD_VERSION`.
 *
 * @example
 * ```ts
 * const { stat } = await zkGetData(client, '/counter');
 * await zkSetData(client, '/counter', '42', stat.version);
 * ```
 */
export function zkSetData(client: Client, path: string, data: Data | null, version = -1): Promise<Stat> {
  return new Promise((resolve, reject) => {
    client.setData(path, toBuffer(data), version, (error, stat) => {
      if (error) reject(wrap('setData', path, error));
      else resolve(stat);
    });
  });
}

/**
 * The `Stat` of a znode, or `null` when it does not exist.
 *
 * @example
 * ```ts
 * if ((await zkExists(client, '/app')) === null) await zkCreate(client, '/app');
 * ```
 */
export function zkExists(client: Client, path: string): Promise<Stat | null> {
  return new Promise((resolve, reject) => {
    client.exists(path, (error, stat) => {
      if (error) reject(wrap('exists', path, error));
      else resolve(stat ?? null);
    });
  });
}

/**
 * The names (not paths) of a znode's children, in the server's order.
 *
 * @example
 * ```ts
 * const names = await zkGetChildren(client, '/app');
 * ```
 */
export function zkGetChildren(client: Client, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    client.getChildren(path, (error, children) => {
      if (error) reject(wrap('getChildren', path, error));
      else resolve(children);
    });
  });
}

/**
 * Deletes a znode without children if its version still is `version` (-1, the default, matches any).
 *
 * @example
 * ```ts
 * await zkRemove(client, '/app/item-0000000001');
 * ```
 */
export function zkRemove(client: Client, path: string, version = -1): Promise<void> {
  return new Promise((resolve, reject) => {
    client.remove(path, version, (error) => {
      if (error) reject(wrap('remove', path, error));
      else resolve();
    });
  });
}

/**
 * The ACL of a znode: one entry per id, each `{ permission, id: { scheme, id } }`.
 *
 * @example
 * ```ts
 * const acl = await zkGetAcl(client, '/app'); // e.g. [{ permission: 31, id: { scheme: 'sasl', id: 'kms' } }]
 * ```
 */
export function zkGetAcl(client: Client, path: string): Promise<ACL[]> {
  return new Promise((resolve, reject) => {
    client.getACL(path, (error, acls) => {
      if (error) reject(wrap('getACL', path, error));
      else resolve(acls);
    });
  });
}
