import { resolveRealOzoneClusterOptions } from './real-ozone-cluster-options.js';
import {
  OZONE_CLIENT_PRINCIPAL,
  OZONE_DATANODE_TLS_HOST,
  OZONE_SERVICE_PRINCIPAL,
  secureOzoneConfiguration,
  type OzoneSecurityKdc,
} from './secure-ozone-configuration.js';

const kdc: OzoneSecurityKdc = {
  realm: 'EXAMPLE.COM',
  principal: (name) => (name.includes('@') ? name : `${name}@EXAMPLE.COM`),
  keytab: () => Promise.resolve('/k/service.keytab'),
  javaOptions: () => ['-Djava.security.krb5.conf=/k/krb5.conf'],
};

describe('secureOzoneConfiguration', () => {
  it('one service principal and keytab for SCM, OM and datanodes; tokens on; RPC authentication', () => {
    const conf = secureOzoneConfiguration({ realm: 'EXAMPLE.COM', serviceKeytab: '/k/s.keytab', tls: false });
    const service = `${OZONE_SERVICE_PRINCIPAL}@EXAMPLE.COM`;
    expect(conf).toEqual({
      'ozone.security.enabled': 'true',
      'hadoop.security.authentication': 'kerberos',
      'hadoop.rpc.protection': 'authentication',
      'hdds.scm.kerberos.principal': service,
      'hdds.scm.kerberos.keytab.file': '/k/s.keytab',
      'ozone.om.kerberos.principal': service,
      'ozone.om.kerberos.keytab.file': '/k/s.keytab',
      'hdds.datanode.kerberos.principal': service,
      'hdds.datanode.kerberos.keytab.file': '/k/s.keytab',
      'hdds.block.token.enabled': 'true',
      'hdds.container.token.enabled': 'true',
      'ozone.administrators': `om,${OZONE_CLIENT_PRINCIPAL}`,
      'hdds.grpc.tls.enabled': 'false',
    });
  });

  it('with tls: gRPC TLS and RPC privacy', () => {
    const conf = secureOzoneConfiguration({ realm: 'R.ORG', serviceKeytab: '/k', tls: true });
    expect(conf['hdds.grpc.tls.enabled']).toBe('true');
    expect(conf['hadoop.rpc.protection']).toBe('privacy');
    expect(conf['hdds.datanode.use.datanode.hostname']).toBe('true');
    expect(conf['hdds.datanode.hostname']).toBe(OZONE_DATANODE_TLS_HOST);
    expect(conf['ozone.om.kerberos.principal']).toBe('om/localhost@R.ORG');
  });
});

describe('resolveRealOzoneClusterOptions: security', () => {
  it('off by default; tls defaults to false', () => {
    expect(resolveRealOzoneClusterOptions({}).security).toBeUndefined();
    expect(resolveRealOzoneClusterOptions({ security: { kdc } }).security).toEqual({ kdc, tls: false });
  });

  it('refuses what is not a KDC, a non-boolean tls, and the S3 gateway with security', () => {
    expect(() =>
      resolveRealOzoneClusterOptions({ security: { kdc: {} as unknown as OzoneSecurityKdc } }),
    ).toThrow(/security\.kdc/);
    expect(() =>
      resolveRealOzoneClusterOptions({ security: { kdc, tls: 'yes' as unknown as boolean } }),
    ).toThrow(/security\.tls/);
    expect(() => resolveRealOzoneClusterOptions({ security: { kdc }, s3Gateway: true })).toThrow(/s3Gateway/);
  });
});
