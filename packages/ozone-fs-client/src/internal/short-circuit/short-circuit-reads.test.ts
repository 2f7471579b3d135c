import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@fastpath/core';
import { DEFAULT_OZONE_CLIENT_CONFIG } from '../../ozone-client-config.js';
import { loadUnixFdFrom } from '../unix-fd/unix-fd.js';
import type { DatanodeAddress } from '../pipeline.js';
import { isLocalAddress, ShortCircuitReads } from './short-circuit-reads.js';

const config = {
  ...DEFAULT_OZONE_CLIENT_CONFIG,
  shortCircuitEnabled: true,
  domainSocketPath: '/run/ozone/dn_socket._PORT',
  shortCircuitDisableIntervalMs: 1000,
};
// An addon that never gets called: these tests only choose targets.
const fakeAddon = () => ({ available: true, unixFd: {} }) as unknown as ReturnType<typeof loadUnixFdFrom>;
const dn = (uuid: string, ipAddress: string, currentVersion: number, port = 9859): DatanodeAddress => ({
  uuid,
  address: `${ipAddress}:${port}`,
  ipAddress,
  currentVersion,
});

describe('ShortCircuitReads', () => {
  it('picks the first local datanode of version 4 or later, with _PORT replaced by its port', () => {
    const sc = new ShortCircuitReads(config, new ManualClock(), fakeAddon);
    const remote = dn('a', '203.0.113.7', 4);
    const old = dn('b', '127.0.0.1', 3);
    const local = dn('c', '127.0.0.1', 4, 40123);
    expect(sc.target([remote, old, local])).toEqual({
      datanode: local,
      socketPath: '/run/ozone/dn_socket.40123',
    });
    expect(sc.target([remote, old])).toBeUndefined();
    expect(sc.target([{ uuid: 'd', address: '127.0.0.1:1' }])).toBeUndefined(); // version unknown
  });

  it('skips a datanode for the disable interval after a failure, then tries it again', () => {
    const clock = new ManualClock();
    const sc = new ShortCircuitReads(config, clock, fakeAddon);
    const first = dn('a', '127.0.0.1', 4, 1);
    const second = dn('b', '127.0.0.1', 4, 2);
    sc.disable(first, new Error('refused'));
    expect(sc.isDisabled('a')).toBe(true);
    expect(sc.target([first, second])?.datanode).toBe(second);
    clock.advance(999);
    expect(sc.target([first])).toBeUndefined();
    clock.advance(1);
    expect(sc.target([first])?.datanode).toBe(first);
    expect(sc.isDisabled('a')).toBe(false);
  });

  it('is off, and never picks a datanode, when the addon cannot be loaded or no socket path is set', () => {
    const missing = new ShortCircuitReads(config, new ManualClock(), () =>
      loadUnixFdFrom('/nonexistent/fastpath_unix_fd.node'),
    );
    expect(missing.available).toBe(false);
    expect(missing.target([dn('a', '127.0.0.1', 4)])).toBeUndefined();
    const noPath = new ShortCircuitReads(
      { ...config, domainSocketPath: undefined },
      new ManualClock(),
      fakeAddon,
    );
    expect(noPath.available).toBe(false);
  });

  it('knows loopback and its own interfaces as local', () => {
    expect(isLocalAddress('127.0.0.1')).toBe(true);
    expect(isLocalAddress('::1')).toBe(true);
    expect(isLocalAddress('192.0.2.44')).toBe(false);
  });
});
