import { InvalidOptionError } from '@fastpath/core';
import {
  DEFAULT_RATIS_GROUP_OPTIONS,
  DEFAULT_RATIS_PROPERTIES,
  resolveRatisGroupOptions,
} from './ratis-group-options.js';

describe('resolveRatisGroupOptions', () => {
  it('fills in frozen defaults', () => {
    const resolved = resolveRatisGroupOptions({});
    expect(resolved).toEqual(DEFAULT_RATIS_GROUP_OPTIONS);
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RATIS_PROPERTIES)).toBe(true);
    expect(resolved.electionTimeoutMinMs).toBeLessThan(resolved.electionTimeoutMaxMs);
  });

  it('merges Ratis keys over the defaults', () => {
    const resolved = resolveRatisGroupOptions({ properties: { 'raft.server.write.byte-limit': '128MB' } });
    expect(resolved.properties).toEqual({
      ...DEFAULT_RATIS_PROPERTIES,
      'raft.server.write.byte-limit': '128MB',
    });
  });

  it('keeps the maximum election timeout above a larger minimum', () => {
    expect(resolveRatisGroupOptions({ electionTimeoutMinMs: 3000 }).electionTimeoutMaxMs).toBe(3000);
  });

  it.each([
    [{ peers: 0 }, 'peers'],
    [{ peers: 8 }, 'peers'],
    [{ heapMb: 1.5 }, 'heapMb'],
    [{ electionTimeoutMinMs: 900, electionTimeoutMaxMs: 800 }, 'electionTimeoutMaxMs'],
    [{ properties: { 'raft.grpc.server.port': '1' } }, 'properties.raft.grpc.server.port'],
    [{ properties: { 'ozone.key': 'x' } }, 'properties.ozone.key'],
    [{ properties: { 'raft.a b': 'x' } }, 'properties.raft.a b'],
    [{ properties: { 'raft.x': 'a\nb' } }, 'properties.raft.x'],
  ])('refuses %j naming %s', (options, field) => {
    expect(() => resolveRatisGroupOptions(options as never)).toThrow(InvalidOptionError);
    expect(() => resolveRatisGroupOptions(options as never)).toThrow(field);
  });
});
