import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError, FastpathError } from '@fastpath/core';
import {
  createSecureRandom,
  DEFAULT_SECURE_RANDOM_OPTIONS,
  HADOOP_RANDOM_DEVICE_FILE_PATH_KEY,
  HADOOP_SECURE_RANDOM_IMPL_KEY,
} from './create-secure-random.js';
import { DeviceSecureRandom } from './device-secure-random.js';
import { NodeCryptoSecureRandom } from './node-crypto-secure-random.js';
import { inspectPool, PooledSecureRandom } from './pooled-secure-random.js';
import type { SecureRandom } from './secure-random.js';
import { expectError } from '@fastpath/test-support';

let dir: string;
let devicePath: string;
let deviceContent: Buffer;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-create-'));
  devicePath = join(dir, 'device');
  deviceContent = randomFillSync(Buffer.alloc(8192));
  writeFileSync(devicePath, deviceContent);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function build(options: Parameters<typeof createSecureRandom>[0]): SecureRandom {
  const random = createSecureRandom(options);
  random.close();
  return random;
}

describe('createSecureRandom', () => {
  it('builds the pooled generator by default', () => {
    expect(DEFAULT_SECURE_RANDOM_OPTIONS.impl).toBe('pooled');
    expect(build(undefined)).toBeInstanceOf(PooledSecureRandom);
    expect(build({ hadoopConfig: { [HADOOP_SECURE_RANDOM_IMPL_KEY]: '' } })).toBeInstanceOf(
      PooledSecureRandom,
    );
  });

  it('builds each implementation by name', () => {
    expect(build({ impl: 'pooled' })).toBeInstanceOf(PooledSecureRandom);
    expect(build({ impl: 'node-crypto' })).toBeInstanceOf(NodeCryptoSecureRandom);
    expect(build({ impl: 'device' })).toBeInstanceOf(DeviceSecureRandom);
  });

  it('passes implementation options on', () => {
    const random = createSecureRandom({ pooled: { poolBytes: 1024 } });
    random.bytes(1);
    expect(inspectPool(random as PooledSecureRandom).pool.length).toBe(1024);
    random.close();
    using device = createSecureRandom({ impl: 'device', device: { path: devicePath } });
    expect(device.bytes(16).equals(deviceContent.subarray(0, 16))).toBe(true);
  });

  it.each([
    ['org.apache.hadoop.crypto.random.OsSecureRandom', DeviceSecureRandom],
    ['OsSecureRandom', DeviceSecureRandom],
    ['org.apache.hadoop.crypto.random.OpensslSecureRandom', NodeCryptoSecureRandom],
    ['OpensslSecureRandom', NodeCryptoSecureRandom],
    ['java.security.SecureRandom', NodeCryptoSecureRandom],
    [' pooled ', PooledSecureRandom],
  ])('maps %s from hadoop.security.secure.random.impl', (value, type) => {
    expect(build({ hadoopConfig: { [HADOOP_SECURE_RANDOM_IMPL_KEY]: value } })).toBeInstanceOf(type);
  });

  it('reads the device path from hadoop.security.random.device.file.path, as an object or a Map', () => {
    const asObject = createSecureRandom({
      hadoopConfig: {
        [HADOOP_SECURE_RANDOM_IMPL_KEY]: 'org.apache.hadoop.crypto.random.OsSecureRandom',
        [HADOOP_RANDOM_DEVICE_FILE_PATH_KEY]: devicePath,
      },
    });
    const asMap = createSecureRandom({
      impl: 'device',
      hadoopConfig: new Map([[HADOOP_RANDOM_DEVICE_FILE_PATH_KEY, devicePath]]),
    });
    try {
      expect((asObject as DeviceSecureRandom).path).toBe(devicePath);
      expect(asObject.bytes(32).equals(deviceContent.subarray(0, 32))).toBe(true);
      expect(asMap.bytes(32).equals(deviceContent.subarray(0, 32))).toBe(true);
    } finally {
      asObject.close();
      asMap.close();
    }
  });

  it('lets explicit options win over the Hadoop configuration', () => {
    const config = {
      [HADOOP_SECURE_RANDOM_IMPL_KEY]: 'OsSecureRandom',
      [HADOOP_RANDOM_DEVICE_FILE_PATH_KEY]: join(dir, 'missing'),
    };
    expect(build({ impl: 'node-crypto', hadoopConfig: config })).toBeInstanceOf(NodeCryptoSecureRandom);
    const device = build({ device: { path: devicePath }, hadoopConfig: config }) as DeviceSecureRandom;
    expect(device.path).toBe(devicePath);
  });

  it('fails clearly on a configured device that does not exist', () => {
    const path = join(dir, 'missing');
    expect(
      expectError(
        () =>
          createSecureRandom({
            impl: 'device',
            hadoopConfig: { [HADOOP_RANDOM_DEVICE_FILE_PATH_KEY]: path },
          }),
        FastpathError,
        { code: 'ERR_SECURE_RANDOM_DEVICE_UNAVAILABLE' },
      ),
    ).toMatchObject({ path });
  });

  it('rejects unknown implementation names, naming the option or key', () => {
    expect(
      expectError(() => createSecureRandom({ impl: 'sha1prng' as never }), FastpathError, {
        code: 'ERR_INVALID_OPTION',
      }),
    ).toMatchObject({ option: 'impl' });
    expect(() =>
      createSecureRandom({ hadoopConfig: { [HADOOP_SECURE_RANDOM_IMPL_KEY]: 'com.example.Unknown' } }),
    ).toThrow(InvalidOptionError);
    expect(
      expectError(
        () =>
          createSecureRandom({ hadoopConfig: { [HADOOP_SECURE_RANDOM_IMPL_KEY]: 'com.example.Unknown' } }),
        FastpathError,
      ),
    ).toMatchObject({ option: HADOOP_SECURE_RANDOM_IMPL_KEY });
  });
});
