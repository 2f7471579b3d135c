import { InvalidOptionError, FastpathError } from '@fastpath/core';
import { checkKeysToWrite } from './key-spec.js';
import {
  OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS,
  resolveRealOzoneClusterOptions,
  SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
} from './real-ozone-cluster-options.js';
import { expectError } from '@fastpath/test-support';

const key = { volume: 'vol1', bucket: 'bucket1', key: 'dir/k', size: 10 };
const context = {
  defaultReplication: 'RATIS/THREE' as const,
  datanodes: 5,
  allowedReplicationConfigs: OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS,
};

/** The InvalidOptionError `run` throws. */
function invalidOption(run: () => unknown): InvalidOptionError {
  let caught: unknown;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvalidOptionError);
  return caught as InvalidOptionError;
}

describe('checkKeysToWrite', () => {
  it('fills in Ozone client defaults', () => {
    expect(checkKeysToWrite([key], context)).toEqual([
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
    [{ ...key, replication: 'RATIS/TWO' }, 'keys[0].replication'],
    [{ ...key, replication: 'lrc-3-2-1024k' }, 'keys[0].replication'],
    [{ ...key, replication: 'rs-0-2-1024k' }, 'keys[0].replication'],
    [{ ...key, replication: 'rs-3-0-1024k' }, 'keys[0].replication'],
    [{ ...key, replication: 'rs-3-2-0k' }, 'keys[0].replication'],
    [{ ...key, replication: 'rs-3-2-2097152k' }, 'keys[0].replication'], // 2 GiB: past a Java int
    [{ ...key, replication: ' rs-3-2-1024k' }, 'keys[0].replication'],
    [{ ...key, replication: 'rs-3-2-64k' }, 'keys[0].replication'], // Ozone's default allows 512k-4096k only
    [{ ...key, replication: 'rs-6-3-1024k' }, 'keys[0].replication'], // 9 datanodes needed, 5 here
    [{ ...key, replication: 'xor-2-1-1024k' }, 'keys[0].replication'], // not in Ozone's default
    [{ ...key, replication: 'rs-3-2-1024k', chunkSizeBytes: 1 << 20 }, 'keys[0].chunkSizeBytes'],
    [{ ...key, bucketReplication: 'rs-3-2-1024k', chunkSizeBytes: 1 << 20 }, 'keys[0].chunkSizeBytes'],
    [{ ...key, bucketReplication: 'rs-3-2-32k' }, 'keys[0].bucketReplication'],
    [{ ...key, bucketLayout: 'FSO' }, 'keys[0].bucketLayout'],
    [{ ...key, dataStream: 'yes' }, 'keys[0].dataStream'],
    [{ ...key, replication: 'rs-3-2-1024k', dataStream: true }, 'keys[0].dataStream'],
  ])('refuses %j naming %s', (spec, option) => {
    expect(invalidOption(() => checkKeysToWrite([key, spec as never].reverse(), context)).option).toBe(
      option,
    );
  });

  it('passes dataStream on only when it is true', () => {
    const [a, b] = checkKeysToWrite(
      [
        { ...key, dataStream: true },
        { ...key, dataStream: false },
      ],
      context,
    );
    expect(a?.dataStream).toBe(true);
    expect(b && 'dataStream' in b).toBe(false);
  });

  it('takes EC replications in Ozone text form, sent in lower case with the cell in k', () => {
    const [a, b, c] = checkKeysToWrite(
      [
        { ...key, replication: 'RS-3-2-1048576' },
        { ...key, replication: 'rs-3-2-64k' },
        { ...key, replication: 'RATIS/ONE' },
      ],
      { ...context, allowedReplicationConfigs: SMALL_CELL_ALLOWED_REPLICATION_CONFIGS },
    );
    expect(a?.replication).toBe('rs-3-2-1024k');
    expect(b?.replication).toBe('rs-3-2-64k');
    expect(c?.replication).toBe('RATIS/ONE');
  });

  it('with a bucket default and no replication of its own, the key names none (the OM applies the bucket’s)', () => {
    const [checked] = checkKeysToWrite([{ ...key, bucketReplication: 'rs-3-2-1024k' }], context);
    expect(checked).not.toHaveProperty('replication');
    expect(checked?.bucketReplication).toBe('rs-3-2-1024k');
    const [own] = checkKeysToWrite(
      [{ ...key, bucketReplication: 'rs-3-2-1024k', replication: 'RATIS/ONE' }],
      context,
    );
    expect(own?.replication).toBe('RATIS/ONE');
  });

  it('refuses two bucket defaults for one bucket in a batch, and says why for the allowed configs', () => {
    const error = invalidOption(() =>
      checkKeysToWrite(
        [
          { ...key, bucketReplication: 'rs-3-2-1024k' },
          { ...key, bucketReplication: 'rs-3-2-2048k' },
        ],
        context,
      ),
    );
    expect(error.option).toBe('keys[1].bucketReplication');
    expect(
      invalidOption(() => checkKeysToWrite([{ ...key, replication: 'rs-3-2-64k' }], context)).message,
    ).toMatch(/EC\/3-2-64k.*allowedReplicationConfigs/);
  });

  it('leaves the allowed-configs check to the OM when the pattern is empty or not JavaScript', () => {
    for (const allowedReplicationConfigs of ['', '(?<!x'])
      expect(
        checkKeysToWrite([{ ...key, replication: 'xor-2-1-1k' }], {
          ...context,
          allowedReplicationConfigs,
        })[0]?.replication,
      ).toBe('xor-2-1-1k');
  });
});

describe('resolveRealOzoneClusterOptions', () => {
  it('merges configuration over the defaults', () => {
    const resolved = resolveRealOzoneClusterOptions({ configuration: { 'ozone.scm.block.size': '1MB' } });
    expect(resolved.datanodes).toBe(3);
    expect(resolved.configuration['ozone.scm.block.size']).toBe('1MB');
    expect(resolved.configuration['ozone.om.http.enabled']).toBe('false');
  });

  it("sets the EC keys from their typed options: Ozone's allowed configs and one EC pipeline by default", () => {
    const resolved = resolveRealOzoneClusterOptions({});
    expect(resolved.configuration['ozone.replication.allowed-configs']).toBe(
      OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS,
    );
    expect(resolved.configuration['ozone.scm.ec.pipeline.minimum']).toBe('1');
    const widened = resolveRealOzoneClusterOptions({
      allowedReplicationConfigs: SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
      ecPipelineMinimum: 5,
    });
    expect(widened.configuration['ozone.replication.allowed-configs']).toBe(
      SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
    );
    expect(widened.configuration['ozone.scm.ec.pipeline.minimum']).toBe('5');
    expect(widened.allowedReplicationConfigs).toBe(SMALL_CELL_ALLOWED_REPLICATION_CONFIGS);
  });

  it.each([
    [{ datanodes: 0 }, 'datanodes'],
    [{ heapMb: 64 }, 'heapMb'],
    [{ startTimeoutMs: 0 }, 'startTimeoutMs'],
    [{ configuration: { 'ozone.om.grpc.port': '9000' } }, 'configuration.ozone.om.grpc.port'],
    [{ configuration: { a: 'x\ny' } }, 'configuration.a'],
    [{ s3Gateway: 'yes' as unknown as boolean }, 's3Gateway'],
    [{ ecPipelineMinimum: 0 }, 'ecPipelineMinimum'],
    [{ allowedReplicationConfigs: 'a\nb' }, 'allowedReplicationConfigs'],
    [
      { configuration: { 'ozone.replication.allowed-configs': '.*' } },
      'configuration.ozone.replication.allowed-configs',
    ],
    [
      { configuration: { 'ozone.scm.ec.pipeline.minimum': '2' } },
      'configuration.ozone.scm.ec.pipeline.minimum',
    ],
  ])('refuses %j naming %s', (options, option) => {
    expect(expectError(() => resolveRealOzoneClusterOptions(options), FastpathError)).toMatchObject({
      option,
    });
  });
});
