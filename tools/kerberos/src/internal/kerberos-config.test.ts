import { describe, expect, it } from '@jest/globals';
import { renderKdcConf, renderKrb5Conf } from './kerberos-config.js';

const layout = {
  realm: 'EXAMPLE.COM',
  dir: '/tmp/r',
  port: 41234,
  clockSkewSeconds: 1,
  maxTicketLifetimeSeconds: 600,
};

describe('realm configuration', () => {
  it('krb5.conf points every client at the loopback KDC, TCP first, without DNS', () => {
    const conf = renderKrb5Conf(layout);
    for (const line of [
      'default_realm = EXAMPLE.COM',
      'dns_lookup_kdc = false',
      'rdns = false',
      'dns_canonicalize_hostname = false',
      'udp_preference_limit = 1',
      'clockskew = 1',
      'kdc = 127.0.0.1:41234',
      'localhost = EXAMPLE.COM',
      'default_ccache_name = FILE:/tmp/r/ccache/default',
      'default_keytab_name = FILE:/tmp/r/keytabs/default.keytab',
    ]) {
      expect(conf).toContain(line);
    }
  });

  it('kdc.conf listens on the loopback port on UDP and TCP and keeps everything in the folder', () => {
    const conf = renderKdcConf(layout);
    expect(conf).toContain('kdc_listen = 127.0.0.1:41234');
    expect(conf).toContain('kdc_tcp_listen = 127.0.0.1:41234');
    expect(conf).toContain('database_name = /tmp/r/db/principal');
    expect(conf).toContain('max_life = 600s');
    expect(conf).toContain('kdc = FILE:/tmp/r/kdc.log');
    expect(conf).not.toMatch(/\/(etc|var)\//);
  });
});
