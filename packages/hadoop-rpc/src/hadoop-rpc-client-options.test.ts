import { InvalidOptionError } from '@fastpath/core';
import { HadoopConfiguration, HadoopConfigurationError } from '@fastpath/hadoop-common';
import { expectError } from '@fastpath/test-support';
import {
  DEFAULT_HADOOP_RPC_CLIENT_OPTIONS,
  hadoopRpcClientOptionsFrom,
  resolveHadoopRpcClientOptions,
} from './hadoop-rpc-client-options.js';

const random = (): Buffer => Buffer.alloc(16, 7);

describe('client options', () => {
  it('fills in Hadoop’s defaults and is frozen', () => {
    const o = resolveHadoopRpcClientOptions({ user: 'alice' }, random);
    expect(o).toMatchObject({
      user: 'alice',
      authProtocol: 'none',
      pingIntervalMs: 60_000,
      pingEnabled: true,
      connectTimeoutMs: 20_000,
      callTimeoutMs: 120_000,
      maxIdleTimeMs: 10_000,
      maxResponseBytes: 134_217_728,
      serviceClass: 0,
    });
    expect(o.clientId).toEqual(Buffer.alloc(16, 7));
    expect(Object.isFrozen(DEFAULT_HADOOP_RPC_CLIENT_OPTIONS)).toBe(true);
  });

  it.each([
    ['clientId', { clientId: new Uint8Array(15) }],
    ['pingIntervalMs', { pingIntervalMs: 0 }],
    ['connectTimeoutMs', { connectTimeoutMs: 1.5 }],
    ['callTimeoutMs', { callTimeoutMs: -1 }],
    ['maxResponseBytes', { maxResponseBytes: 2 ** 31 }],
    ['serviceClass', { serviceClass: 256 }],
    ['authProtocol', { authProtocol: 'kerberos' }],
    ['saslMechanisms', { saslMechanisms: [] }],
    ['user', { user: '' }],
  ])('refuses a bad %s, naming it', (option, bad) => {
    const error = expectError(
      () => resolveHadoopRpcClientOptions({ user: 'u', ...(bad as object) }, random),
      InvalidOptionError,
      { code: 'ERR_INVALID_OPTION' },
    );
    expect(error.option).toBe(option);
  });

  it('reads the ipc.* keys of a Hadoop configuration, with Hadoop’s defaults when absent', () => {
    expect(hadoopRpcClientOptionsFrom(new HadoopConfiguration())).toEqual({
      pingIntervalMs: 60_000,
      pingEnabled: true,
      connectTimeoutMs: 20_000,
      callTimeoutMs: 120_000,
      maxIdleTimeMs: 10_000,
      maxResponseBytes: 134_217_728,
    });
    const conf = new HadoopConfiguration().withOverrides(
      {
        'ipc.ping.interval': '5000',
        'ipc.client.ping': 'false',
        'ipc.client.connect.timeout': '1000',
        'ipc.client.rpc-timeout.ms': '0',
        'ipc.client.connection.maxidletime': '2000',
        'ipc.maximum.response.length': '1048576',
      },
      'core-site.xml',
    );
    expect(hadoopRpcClientOptionsFrom(conf)).toEqual({
      pingIntervalMs: 5000,
      pingEnabled: false,
      connectTimeoutMs: 1000,
      callTimeoutMs: 0,
      maxIdleTimeMs: 2000,
      maxResponseBytes: 1_048_576,
    });
    const bad = new HadoopConfiguration().withOverrides({ 'ipc.ping.interval': 'soon' }, 'core-site.xml');
    expect(() => hadoopRpcClientOptionsFrom(bad)).toThrow(HadoopConfigurationError);
  });
});
