import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsConfigError } from '../../kms-errors.js';
import { KMS_PROPERTY_DEFAULTS } from './kms-properties.js';
import { loadKmsSettings } from './load-kms-settings.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kms-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const site = (props: Record<string, string>): void =>
  writeFileSync(
    join(dir, 'kms-site.xml'),
    `<configuration>${Object.entries(props)
      .map(([k, v]) => `<property><name>${k}</name><value>${v}</value></property>`)
      .join('\n')}</configuration>`,
  );

function refusal(fn: () => unknown): KmsConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(KmsConfigError);
    return error as KmsConfigError;
  }
  throw new Error('expected a KmsConfigError');
}

describe('loadKmsSettings', () => {
  it('has Hadoop defaults with no config directory at all', () => {
    const { settings } = loadKmsSettings({
      layers: [{ source: 't', values: { 'fastpath.kms.data.dir': dir } }],
    });
    expect(settings.http.port).toBe(9600);
    expect(settings.http.host).toBe('0.0.0.0');
    expect(settings.keys.defaultCipher).toBe('AES/CTR/NoPadding');
    expect(settings.keys.defaultBitLength).toBe(128);
    expect(settings.tokens.maxLifetimeMs).toBe(604_800_000);
    expect(settings.tokens.renewIntervalMs).toBe(86_400_000);
    expect(settings.tokens.creationLocking).toBe('staged');
    expect(settings.tokens.zookeeper).toBeUndefined();
    expect(settings.audit.aggregationWindowMs).toBe(10_000);
    expect(settings.auth.tokenValiditySec).toBe(36_000);
    expect(settings.keystore.file).toBe(join(dir, 'kms.keystore'));
    expect(settings.audit.file).toBe(join(dir, 'kms-audit.log'));
    expect(settings.workers).toBe(1);
    expect(Object.isFrozen(KMS_PROPERTY_DEFAULTS)).toBe(true);
  });

  it('reads kms-site.xml, and later layers win over it', () => {
    site({ 'hadoop.kms.http.port': '9700', 'hadoop.kms.http.host': '127.0.0.1' });
    const { settings } = loadKmsSettings({
      configDir: dir,
      layers: [
        { source: 'environment', values: { 'hadoop.kms.http.port': '9800' } },
        { source: 'command line', values: { 'hadoop.kms.http.host': '::1' } },
      ],
    });
    expect(settings.http.port).toBe(9800);
    expect(settings.http.host).toBe('::1');
  });

  it('refuses an invalid value naming the property and where it was set', () => {
    site({ 'hadoop.kms.http.port': 'ninety' });
    const error = refusal(() => loadKmsSettings({ configDir: dir }));
    expect(error.property).toBe('hadoop.kms.http.port');
    expect(error.message).toContain('hadoop.kms.http.port');
    expect(error.message).toContain(join(dir, 'kms-site.xml'));
    const bool = refusal(() =>
      loadKmsSettings({ layers: [{ source: 'command line', values: { 'hadoop.kms.ssl.enabled': 'yes' } }] }),
    );
    expect(bool.property).toBe('hadoop.kms.ssl.enabled');
    expect(bool.message).toContain('command line');
  });

  it('refuses an invalid kms-site.xml file naming the file', () => {
    writeFileSync(join(dir, 'kms-site.xml'), '<configuration><property>');
    const error = refusal(() => loadKmsSettings({ configDir: dir }));
    expect(error.property).toBe(join(dir, 'kms-site.xml'));
  });

  it('refuses Kerberos, ZooKeeper signer secrets and SASL with a clear reason', () => {
    expect(
      refusal(() =>
        loadKmsSettings({
          layers: [{ source: 't', values: { 'hadoop.kms.authentication.type': 'kerberos' } }],
        }),
      ).message,
    ).toMatch(/Kerberos\/SPNEGO authentication is not supported/);
    expect(
      refusal(() =>
        loadKmsSettings({
          layers: [
            { source: 't', values: { 'hadoop.kms.authentication.signer.secret.provider': 'zookeeper' } },
          ],
        }),
      ).property,
    ).toBe('hadoop.kms.authentication.signer.secret.provider');
  });

  it('needs a connection string for the ZooKeeper store, and the ZooKeeper store for several workers', () => {
    const zk = 'hadoop.kms.authentication.zk-dt-secret-manager.';
    expect(
      refusal(() => loadKmsSettings({ layers: [{ source: 't', values: { [`${zk}enable`]: 'true' } }] }))
        .property,
    ).toBe(`${zk}zkConnectionString`);
    const workers = refusal(() =>
      loadKmsSettings({ layers: [{ source: 't', values: { 'fastpath.kms.workers': '2' } }] }),
    );
    expect(workers.property).toBe(`${zk}enable`);
    expect(workers.message).toMatch(/2 workers need the ZooKeeper token store/);
    const { settings } = loadKmsSettings({
      layers: [
        {
          source: 't',
          values: {
            'fastpath.kms.workers': '2',
            [`${zk}enable`]: 'true',
            [`${zk}zkConnectionString`]: '127.0.0.1:2181',
            [`${zk}token.seqnum.batch.size`]: '1000',
            'fastpath.kms.token.creation.locking': 'global',
          },
        },
      ],
    });
    expect(settings.tokens.zookeeper).toMatchObject({
      connectionString: '127.0.0.1:2181',
      znodeWorkingPath: 'zkdtsm',
      seqNumBatchSize: 1000,
    });
    expect(settings.tokens.creationLocking).toBe('global');
  });

  it('substitutes ${property} and ${env.NAME} as Hadoop does', () => {
    site({ 'fastpath.kms.keystore.file': '${env.KMS_HOME}/ks/${name}', name: 'main.keystore' });
    const { settings } = loadKmsSettings({ configDir: dir, env: { KMS_HOME: '/srv/kms' } });
    expect(settings.keystore.file).toBe('/srv/kms/ks/main.keystore');
  });

  it('reads proxy-user rules and the static group mapping', () => {
    const { settings } = loadKmsSettings({
      layers: [
        {
          source: 't',
          values: {
            'hadoop.kms.proxyuser.client.users': 'foo,bar',
            'hadoop.user.group.static.mapping.overrides': 'alice=admins,ops;bob=;',
          },
        },
      ],
    });
    expect(settings.proxyUserProperties.get('hadoop.kms.proxyuser.client.users')).toBe('foo,bar');
    expect(settings.groups.staticMapping.get('alice')).toEqual(['admins', 'ops']);
    expect(settings.groups.staticMapping.get('bob')).toEqual([]);
    expect(
      refusal(() =>
        loadKmsSettings({ layers: [{ source: 't', values: { 'hadoop.kms.proxyuser.client.user': 'x' } }] }),
      ).property,
    ).toBe('hadoop.kms.proxyuser.client.user');
  });
});
