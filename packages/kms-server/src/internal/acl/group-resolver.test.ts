import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@fastpath/core';
import { GroupResolver } from './group-resolver.js';

describe('GroupResolver', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kms-groups-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads primary and supplementary groups, with static overrides first and a cache', () => {
    const passwdFile = join(dir, 'passwd');
    const groupFile = join(dir, 'group');
    writeFileSync(passwdFile, 'alice:x:1000:1000::/home/alice:/bin/sh\nbob:x:1001:1001::/:/bin/sh\n');
    writeFileSync(groupFile, 'alice:x:1000:\nbob:x:1001:\nadmins:x:2000:alice,carol\nops:x:2001:alice\n');
    const clock = new ManualClock(0);
    const groups = new GroupResolver({
      passwdFile,
      groupFile,
      clock,
      cacheMs: 1000,
      staticMapping: new Map([['bob', ['fixed']]]),
    });
    expect(groups.groupsOf('alice')).toEqual(['alice', 'admins', 'ops']);
    expect(groups.groupsOf('carol')).toEqual(['admins']);
    expect(groups.groupsOf('bob')).toEqual(['fixed']);
    expect(groups.groupsOf('nobody')).toEqual([]);
    writeFileSync(groupFile, 'alice:x:1000:\n');
    expect(groups.groupsOf('carol')).toEqual(['admins']);
    clock.advance(1001);
    expect(groups.groupsOf('carol')).toEqual([]);
    expect(new GroupResolver({ mapping: 'none', passwdFile, groupFile }).groupsOf('alice')).toEqual([]);
  });
});
