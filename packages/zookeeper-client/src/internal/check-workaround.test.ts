import { readFileSync } from 'node:fs';
import {
  NODE_ZOOKEEPER_CLIENT_VERSION,
  WORKAROUND_DEPENDENCIES,
  checkWorkaround,
  installedLibrarySources,
  type Workaround,
} from './check-workaround.js';
import { expectError } from '@fastpath/test-support';
import { ZooKeeperClientVersionError } from '../zookeeper-client-errors.js';

const workarounds = Object.keys(WORKAROUND_DEPENDENCIES) as Workaround[];

describe('checkWorkaround', () => {
  it('passes every workaround on the installed library, which is the version they were written for', () => {
    const manifest = JSON.parse(
      readFileSync(require.resolve('node-zookeeper-client/package.json'), 'utf8'),
    ) as { version: string };
    expect(manifest.version).toBe(NODE_ZOOKEEPER_CLIENT_VERSION);
    for (const workaround of workarounds) expect(() => checkWorkaround(workaround)).not.toThrow();
  });

  it('refuses a workaround when a function it relies on changed, naming the function', () => {
    const sources = { ...installedLibrarySources() };
    sources['ConnectionManager#onSocketData'] = `${sources['ConnectionManager#onSocketData']}\n// patched`;
    expect(
      expectError(() => checkWorkaround('socket-guard', sources), ZooKeeperClientVersionError, {
        code: 'ERR_ZOOKEEPER_CLIENT_VERSION',
      }),
    ).toMatchObject({
      workaround: 'socket-guard',
      writtenFor: '1.1.3',
      changed: ['ConnectionManager#onSocketData'],
      retriable: false,
    });
    expect(() => checkWorkaround('persistent-watch', sources)).toThrow(/ConnectionManager#onSocketData/);
    // A workaround that does not rely on it is unaffected.
    expect(() => checkWorkaround('delete-recursive', sources)).not.toThrow();
  });

  it('refuses a workaround when a function it relies on is gone', () => {
    const sources = { ...installedLibrarySources(), 'WatcherManager#emit': undefined };
    expect(
      expectError(() => checkWorkaround('persistent-watch', sources), ZooKeeperClientVersionError),
    ).toMatchObject({
      changed: ['WatcherManager#emit'],
    });
  });

  it('lists what each workaround relies on', () => {
    expect(workarounds.sort()).toEqual([
      'bounded-connect',
      'close-socket',
      'delete-recursive',
      'persistent-watch',
      'reconnect-stall',
      'sasl',
      'socket-guard',
    ]);
    for (const workaround of workarounds)
      expect(WORKAROUND_DEPENDENCIES[workaround].length).toBeGreaterThan(0);
  });
});
