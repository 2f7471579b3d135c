import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsConfigError, KmsKerberosError } from '../../kms-errors.js';
import { keytabBytes } from '../../../test/support/kerberos-bytes.js';
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

function refusalOf<E extends Error>(type: new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}

const refusal = (fn: () => unknown): KmsConfigError => refusalOf(KmsConfigError, fn);

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

  it('refuses unknown authentication types with a clear reason', () => {
    expect(
      refusal(() =>
        loadKmsSettings({
          layers: [{ source: 't', values: { 'hadoop.kms.authentication.type': 'digest' } }],
        }),
      ).property,
    ).toBe('hadoop.kms.authentication.type');
  });

  describe('ZooKeeper signer secrets', () => {
    const zkSigner = 'hadoop.kms.authentication.signer.secret.provider.zookeeper.';
    const load = (values: Record<string, string>): ReturnType<typeof loadKmsSettings> =>
      loadKmsSettings({
        layers: [
          {
            source: 't',
            values: { 'hadoop.kms.authentication.signer.secret.provider': 'zookeeper', ...values },
          },
        ],
      });

    it("reads Hadoop's settings with Hadoop's defaults, and says a configured secret is not used", () => {
      const { settings } = load({
        [`${zkSigner}connection.string`]: '127.0.0.1:2181',
        'hadoop.kms.authentication.signature.secret': 'unused',
      });
      expect(settings.auth.zookeeperSigner).toEqual({
        connectionString: '127.0.0.1:2181',
        path: '/hadoop-kms/hadoop-auth-signature-secret',
        connectionTimeoutMs: 10_000,
        sessionTimeoutMs: 30_000,
      });
      expect(settings.auth.signatureSecret).toBeUndefined();
      expect(settings.warnings).toContain(
        'hadoop.kms.authentication.signature.secret is ignored: signer.secret.provider is zookeeper',
      );
    });

    it('refuses a missing connection string, SASL without its keytab or principal, and a relative znode path', () => {
      expect(refusal(() => load({})).property).toBe(`${zkSigner}connection.string`);
      const sasl = { [`${zkSigner}connection.string`]: 'zk:2181', [`${zkSigner}auth.type`]: 'sasl' };
      const noKeytab = refusal(() => load(sasl));
      expect(noKeytab.property).toBe(`${zkSigner}kerberos.keytab`);
      expect(noKeytab.message).toBe(
        `${zkSigner}kerberos.keytab is required when ${zkSigner}auth.type is sasl`,
      );
      expect(
        refusal(() => load({ ...sasl, [`${zkSigner}kerberos.keytab`]: join(dir, 'kms.keytab') })).property,
      ).toBe(`${zkSigner}kerberos.principal`);
      expect(
        refusal(() =>
          load({
            ...sasl,
            [`${zkSigner}kerberos.keytab`]: join(dir, 'kms.keytab'),
            [`${zkSigner}kerberos.principal`]: 'kms/a/b',
          }),
        ).property,
      ).toBe(`${zkSigner}kerberos.principal`);
      expect(
        refusal(() => load({ [`${zkSigner}connection.string`]: 'zk:2181', [`${zkSigner}path`]: 'secrets' }))
          .property,
      ).toBe(`${zkSigner}path`);
    });
  });

  describe('SASL (Kerberos) to ZooKeeper', () => {
    const zkSigner = 'hadoop.kms.authentication.signer.secret.provider.zookeeper.';
    const zkDt = 'hadoop.kms.authentication.zk-dt-secret-manager.';
    const load = (values: Record<string, string>) => {
      const krb5 = join(dir, 'krb5.conf');
      writeFileSync(krb5, '[libdefaults]\n default_realm = EXAMPLE.COM\n');
      return loadKmsSettings({
        layers: [
          {
            source: 't',
            values: {
              'hadoop.kms.authentication.signer.secret.provider': 'zookeeper',
              [`${zkSigner}connection.string`]: 'zk:2181',
              [`${zkDt}enable`]: 'true',
              [`${zkDt}zkConnectionString`]: 'zk:2181',
              ...values,
            },
          },
        ],
        env: { KRB5_CONFIG: krb5 },
      });
    };

    it("reads Hadoop's keytab and principal for both clients, the realm from krb5.conf", () => {
      const keytab = join(dir, 'kms.keytab');
      writeFileSync(keytab, keytabBytes(['kms/host1@EXAMPLE.COM', 'kms2@EXAMPLE.COM']));
      const { settings } = load({
        [`${zkSigner}auth.type`]: 'sasl',
        [`${zkSigner}kerberos.keytab`]: keytab,
        [`${zkSigner}kerberos.principal`]: 'kms/host1',
        [`${zkDt}zkAuthType`]: 'sasl',
        [`${zkDt}kerberos.keytab`]: keytab,
        [`${zkDt}kerberos.principal`]: 'kms2@EXAMPLE.COM',
        'fastpath.kms.zookeeper.sasl.client.username': 'zk',
      });
      expect(settings.auth.zookeeperSigner?.sasl).toEqual({
        keytab,
        principal: 'kms/host1@EXAMPLE.COM',
        serviceName: 'zk',
      });
      expect(settings.tokens.zookeeper?.sasl).toEqual({
        keytab,
        principal: 'kms2@EXAMPLE.COM',
        serviceName: 'zk',
      });
      expect(load({}).settings.tokens.zookeeper?.sasl).toBeUndefined();
    });

    it('refuses a keytab that cannot be read or does not hold the principal, naming the setting', () => {
      const keytab = join(dir, 'kms.keytab');
      writeFileSync(keytab, keytabBytes(['other@EXAMPLE.COM']));
      const sasl = { [`${zkDt}zkAuthType`]: 'sasl', [`${zkDt}kerberos.principal`]: 'kms/host1' };
      const absent = refusalOf(KmsKerberosError, () => load({ ...sasl, [`${zkDt}kerberos.keytab`]: keytab }));
      expect(absent.property).toBe(`${zkDt}kerberos.principal`);
      expect(absent.message).toBe(
        `${zkDt}kerberos.principal kms/host1@EXAMPLE.COM is not in the keytab ${keytab} (it holds other@EXAMPLE.COM)`,
      );
      const unreadable = refusalOf(KmsKerberosError, () =>
        load({ ...sasl, [`${zkDt}kerberos.keytab`]: join(dir, 'none.keytab') }),
      );
      expect(unreadable.property).toBe(`${zkDt}kerberos.keytab`);
      expect(unreadable.message).toMatch(/cannot be read: ENOENT$/);
    });
  });

  describe('Kerberos mode', () => {
    const auth = 'hadoop.kms.authentication.';
    const krb5 = (realm: string | null): string => {
      const file = join(dir, 'krb5.conf');
      writeFileSync(file, realm === null ? '[libdefaults]\n' : `[libdefaults]\n default_realm = ${realm}\n`);
      return file;
    };
    const keytab = (principals: string[]): string => {
      const file = join(dir, 'http.keytab');
      writeFileSync(file, keytabBytes(principals));
      return file;
    };
    const load = (values: Record<string, string>, realm: string | null = 'EXAMPLE.COM') =>
      loadKmsSettings({
        layers: [{ source: 't', values: { [`${auth}type`]: 'kerberos', ...values } }],
        env: { KRB5_CONFIG: krb5(realm) },
      });
    const kerberosRefusal = (fn: () => unknown): KmsKerberosError => refusalOf(KmsKerberosError, fn);

    it('resolves the principal with the default realm, and * to every HTTP/ principal of the keytab', () => {
      const file = keytab(['HTTP/localhost@EXAMPLE.COM', 'HTTP/kms1@EXAMPLE.COM', 'client@EXAMPLE.COM']);
      const { settings } = load({ [`${auth}kerberos.keytab`]: file });
      expect(settings.auth.type).toBe('kerberos');
      expect(settings.auth.kerberos).toMatchObject({
        keytab: file,
        principal: 'HTTP/localhost',
        acceptedPrincipals: ['HTTP/localhost@EXAMPLE.COM'],
        nameRules: 'DEFAULT',
        nameRulesMechanism: 'hadoop',
        defaultRealm: 'EXAMPLE.COM',
      });
      const star = load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.principal`]: '*' });
      expect(star.settings.auth.kerberos?.acceptedPrincipals).toEqual([
        'HTTP/localhost@EXAMPLE.COM',
        'HTTP/kms1@EXAMPLE.COM',
      ]);
      const full = load({
        [`${auth}kerberos.keytab`]: file,
        [`${auth}kerberos.principal`]: 'HTTP/kms1@EXAMPLE.COM',
        [`${auth}kerberos.name.rules.mechanism`]: 'mit',
      });
      expect(full.settings.auth.kerberos?.acceptedPrincipals).toEqual(['HTTP/kms1@EXAMPLE.COM']);
      expect(full.settings.auth.kerberos?.nameRulesMechanism).toBe('mit');
    });

    it('refuses a missing or foreign keytab, a principal not in it, a non-HTTP principal and an unknown realm', () => {
      const missing = kerberosRefusal(() => load({ [`${auth}kerberos.keytab`]: join(dir, 'none.keytab') }));
      expect(missing.property).toBe(`${auth}kerberos.keytab`);
      expect(missing.message).toBe(
        `${auth}kerberos.keytab ${join(dir, 'none.keytab')} cannot be read: ENOENT`,
      );
      const notKeytab = join(dir, 'kms-site.xml');
      writeFileSync(notKeytab, '<configuration/>');
      expect(kerberosRefusal(() => load({ [`${auth}kerberos.keytab`]: notKeytab })).message).toMatch(
        /is not a usable Kerberos keytab/,
      );
      const file = keytab(['HTTP/otherhost@EXAMPLE.COM', 'client@EXAMPLE.COM']);
      const absent = kerberosRefusal(() => load({ [`${auth}kerberos.keytab`]: file }));
      expect(absent.property).toBe(`${auth}kerberos.principal`);
      expect(absent.message).toBe(
        `${auth}kerberos.principal HTTP/localhost@EXAMPLE.COM is not in the keytab ${file} (it holds HTTP/otherhost@EXAMPLE.COM, client@EXAMPLE.COM)`,
      );
      expect(
        kerberosRefusal(() =>
          load({
            [`${auth}kerberos.keytab`]: file,
            [`${auth}kerberos.principal`]: 'HTTP/otherhost@OTHER.COM',
          }),
        ).message,
      ).toMatch(/HTTP\/otherhost@OTHER.COM is not in the keytab/);
      expect(
        kerberosRefusal(() =>
          load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.principal`]: 'client@EXAMPLE.COM' }),
        ).message,
      ).toMatch(/must be an HTTP service principal/);
      expect(
        kerberosRefusal(() =>
          load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.principal`]: 'HTTP/otherhost' }, null),
        ).message,
      ).toMatch(/names no realm and krb5.conf .* has no default_realm/);
      const noHttp = keytab(['client@EXAMPLE.COM']);
      expect(
        kerberosRefusal(() =>
          load({ [`${auth}kerberos.keytab`]: noHttp, [`${auth}kerberos.principal`]: '*' }),
        ).message,
      ).toMatch(/is "\*" but the keytab .* holds no HTTP\/ principal/);
      // Mechanism and rule syntax are settings: ERR_KMS_CONFIG.
      expect(
        refusal(() =>
          load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.name.rules.mechanism`]: 'posix' }),
        ).property,
      ).toBe(`${auth}kerberos.name.rules.mechanism`);
      expect(
        refusal(() =>
          load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.name.rules`]: 'RULE:[1:$1' }),
        ).property,
      ).toBe(`${auth}kerberos.name.rules`);
      // Hadoop's full rule syntax is accepted.
      const rules = 'RULE:[2:$1@$0](client@.*)s/@.*//L DEFAULT';
      expect(
        load({
          [`${auth}kerberos.keytab`]: keytab(['HTTP/localhost@EXAMPLE.COM']),
          [`${auth}kerberos.name.rules`]: rules,
        }).settings.auth.kerberos?.nameRules,
      ).toBe(rules);
    });

    it("reads kerberos.endpoint.whitelist as Hadoop's handler does, refusing what it refuses and /kms", () => {
      const file = keytab(['HTTP/localhost@EXAMPLE.COM']);
      const whitelist = (value: string) =>
        load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.endpoint.whitelist`]: value });
      expect(load({ [`${auth}kerberos.keytab`]: file }).settings.auth.kerberos?.endpointWhitelist).toEqual(
        [],
      );
      // Commas or new lines, spaces around them, empty entries skipped.
      expect(
        whitelist(' /jmx, /prom\n/conf,, /log_Level2 ').settings.auth.kerberos?.endpointWhitelist,
      ).toEqual(['/jmx', '/prom', '/conf', '/log_Level2']);
      for (const entry of ['jmx', '/', '/a/b', '/jmx?x', '/pröm']) {
        const refused = refusal(() => whitelist(`/jmx,${entry}`));
        expect(refused.property).toBe(`${auth}kerberos.endpoint.whitelist`);
        expect(refused.message).toBe(
          `${auth}kerberos.endpoint.whitelist: The element of the whitelist: ${entry} must start with '/' and must not contain special characters afterwards`,
        );
      }
      expect(refusal(() => whitelist('/prom, /kms')).message).toMatch(
        /endpoint\.whitelist: \/kms is the path of every KMS call, which would then run with no user/,
      );
      // A settings mistake is reported before the keytab is read.
      expect(
        refusal(() =>
          load({
            [`${auth}kerberos.keytab`]: join(dir, 'none.keytab'),
            [`${auth}kerberos.endpoint.whitelist`]: '/a/b',
          }),
        ).property,
      ).toBe(`${auth}kerberos.endpoint.whitelist`);
    });

    it("takes _HOST in kerberos.principal as written, as Hadoop's KMS does, and says so", () => {
      const file = keytab(['HTTP/localhost@EXAMPLE.COM']);
      const refused = kerberosRefusal(() =>
        load({ [`${auth}kerberos.keytab`]: file, [`${auth}kerberos.principal`]: 'HTTP/_HOST@EXAMPLE.COM' }),
      );
      expect(refused.message).toBe(
        `${auth}kerberos.principal HTTP/_HOST@EXAMPLE.COM is not in the keytab ${file} (it holds HTTP/localhost@EXAMPLE.COM); ` +
          "_HOST is taken as written, as Hadoop's KMS takes it in this setting: write the server's host name",
      );
      // A keytab that does hold the literal name serves it, as Hadoop's would.
      const literal = keytab(['HTTP/_HOST@EXAMPLE.COM']);
      expect(
        load({ [`${auth}kerberos.keytab`]: literal, [`${auth}kerberos.principal`]: 'HTTP/_HOST' }).settings
          .auth.kerberos?.acceptedPrincipals,
      ).toEqual(['HTTP/_HOST@EXAMPLE.COM']);
    });

    it('reads the signer and cookie settings', () => {
      const { settings } = loadKmsSettings({
        layers: [
          {
            source: 't',
            values: {
              [`${auth}token.validity`]: '1',
              [`${auth}token.max-inactive-interval`]: '30',
              [`${auth}cookie.persistent`]: 'true',
              [`${auth}cookie.path`]: '/kms',
            },
          },
        ],
      });
      expect(settings.auth).toMatchObject({
        type: 'simple',
        kerberos: undefined,
        tokenValiditySec: 1,
        maxInactiveSec: 30,
        cookiePersistent: true,
        cookiePath: '/kms',
        cookieDomain: undefined,
        signatureSecret: undefined,
      });
    });
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
