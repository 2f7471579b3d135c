import { InvalidOptionError, FastpathError } from '@fastpath/core';
import { checkKeysToWrite } from './key-spec.js';
import { resolveRealOzoneClusterOptions } from './real-ozone-cluster-options.js';
import { expectError } from '@fastpath/test-support';

const key = { volume: 'vol1', bucket: 'bucket1', key: 'dir/k', size: 10 };

describe('checkKeysToWrite', () => {
  it('fills in Ozone client defaults', () => {
    expect(checkKeysToWrite([key], 'RATIS/THREE')).toEqual([
      { ...key, checksumType: 'CRC32', bytesPerChecksum: 16_384, seed: 0, replication: 'RATIS/THREE' },
    ]);
  });

  it.each([
    [{ ...key, volume: 'Vol1' }, 'keys[0].volume'],
    [{ ...key, volume: 'ab' }, 'keys[0].volume'],
    [{ ...key, bucket: 'b..c' }, 'keys[0].bucket'],
    [{ ...key, bucket: '-bucket' }, 'keys[0].bucket'],
    [{ ...key, key: '' }, 'keys[0].key'],
    [{ ...key, key: 'a\nb' }, 'keys[0].key'],
    [{ ...key, size: -1 }, 'keys[0].size'],
    [{ ...key, size: 1.5 }, 'keys[0].size'],
    [{ ...key, checksumType: 'CRC64' }, 'keys[0].checksumType'],
    [{ ...key, bytesPerChecksum: 0 }, 'keys[0].bytesPerChecksum'],
    [{ ...key, seed: 2 ** 31 }, 'keys[0].seed'],
    [{ ...key, replication: 'EC/3-2' }, 'keys[0].replication'],
    [{ ...key, bucketLayout: 'FSO' }, 'keys[0].bucketLayout'],
  ])('refuses %j naming %s', (spec, option) => {
    let caught: unknown;
    try {
      checkKeysToWrite([key, spec as never].reverse(), 'RATIS/THREE');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidOptionError);
    expect((caught as InvalidOptionError).option).toBe(option);
  });
});

describe('resolveRealOzoneClusterOptions', () => {
  it('merges configuration over the defaults', () => {
    const resolved = resolveRealOzoneClusterOptions({ configuration: { 'ozone.scm.block.size': '1MB' } });
    expect(resolved.datanodes).toBe(3);
    expect(resolved.configuration['ozone.scm.block.size']).toBe('1MB');
    expect(resolved.configuration['ozone.om.http.enabled']).toBe('false');
  });

  it.each([
    [{ datanodes: 0 }, 'datanodes'],
    [{ heapMb: 64 }, 'heapMb'],
    [{ startTimeoutMs: 0 }, 'startTimeoutMs'],
    [{ configuration: { 'ozone.om.grpc.port': '9000' } }, 'configuration.ozone.om.grpc.port'],
    [{ configuration: { a: 'x\ny' } }, 'configuration.a'],
    [{ s3Gateway: 'yes' as unknown as boolean }, 's3Gateway'],
  ])('refuses %j naming %s', (options, option) => {
    expect(expectError(() => resolveRealOzoneClusterOptions(options), FastpathError)).toMatchObject({
      option,
    });
  });
});
