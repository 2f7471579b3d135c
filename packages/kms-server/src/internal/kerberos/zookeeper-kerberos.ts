import { createKerberosSaslMechanism, type SaslMechanism } from '@fastpath/hadoop-rpc';
import type { ZooKeeperSaslOptions } from '@fastpath/zookeeper-client';
import type { ZkSaslSettings } from './zookeeper-sasl-settings.js';

/**
 * The `sasl` option of a ZooKeeper client logged in from the settings' keytab: hadoop-rpc's
 * Kerberos (GSSAPI) mechanism, which logs in from the keytab into a ticket cache of its own and
 * again whenever the ticket has ended, and checks that the server proves it holds the service
 * key (mutual authentication). ZooKeeper advertises no principal (the client forms
 * `<service>/<host>` itself), so the mechanism accepts the one formed for each server.
 */
export function zooKeeperKerberos(settings: ZkSaslSettings): ZooKeeperSaslOptions {
  const kerberos = createKerberosSaslMechanism({
    serverPrincipalPattern: `${settings.serviceName}/*`,
    principal: settings.principal,
    keytab: settings.keytab,
  });
  return { serviceName: settings.serviceName, mechanism: zooKeeperSaslMechanism(kerberos) };
}

/**
 * A Hadoop RPC SASL mechanism (KERBEROS) as a ZooKeeper client's: each connection's exchange
 * starts as if the server had offered GSSAPI for `<service>/<principal host>`, which is how
 * ZooKeeper's Java client names the server.
 */
export function zooKeeperSaslMechanism(kerberos: SaslMechanism): ZooKeeperSaslOptions['mechanism'] {
  return {
    start: (server) =>
      kerberos.start(
        {
          method: 'KERBEROS',
          mechanism: 'GSSAPI',
          protocol: server.service,
          serverId: server.principalHost,
          challenge: undefined,
        },
        {
          address: server.address,
          host: server.host,
          port: server.port,
          remoteIp: server.host,
          protocol: 'zookeeper',
        },
      ),
  };
}
