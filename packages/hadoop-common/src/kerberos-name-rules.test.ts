import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { expectError } from '@fastpath/test-support';
import { KerberosName } from './kerberos-name.js';
import {
  KerberosNameRulesError,
  MalformedKerberosNameError,
  NoMatchingKerberosRuleError,
} from './kerberos-name-errors.js';
import { KerberosNameRules } from './kerberos-name-rules.js';
import { krb5DefaultRealm, parseKrb5DefaultRealm } from './krb5-default-realm.js';

// The cases of Hadoop's own TestKerberosName (hadoop-auth), as facts: its realm is EXAMPLE.COM
// and these are its rules, one a line as in its test.
const HADOOP_TEST_RULES = [
  'RULE:[1:$1@$0](.*@YAHOO\\.COM)s/@.*//',
  'RULE:[2:$1](johndoe)s/^.*$/guest/',
  'RULE:[2:$1;$2](^.*;admin$)s/;admin$//',
  'RULE:[2:$2](root)',
  'DEFAULT',
].join('\n');
const REALM = 'EXAMPLE.COM';

const rules = (text: string, mechanism = 'hadoop'): KerberosNameRules =>
  new KerberosNameRules(text, { mechanism, defaultRealm: REALM });

describe("Hadoop's TestKerberosName", () => {
  it('testRules: translates each principal as Hadoop does', () => {
    const r = rules(HADOOP_TEST_RULES);
    expect(r.shortName(`omalley@${REALM}`)).toBe('omalley');
    expect(r.shortName(`hdfs/10.0.0.1@${REALM}`)).toBe('hdfs');
    expect(r.shortName('oom@YAHOO.COM')).toBe('oom');
    expect(r.shortName('johndoe/zoo@FOO.COM')).toBe('guest');
    expect(r.shortName('joe/admin@FOO.COM')).toBe('joe');
    expect(r.shortName('joe/root@FOO.COM')).toBe('root');
  });

  it('testAntiPatterns: malformed names, and no rule under hadoop vs the full name under mit', () => {
    expectError(() => KerberosName.parse('owen/owen/owen@FOO.COM'), MalformedKerberosNameError);
    expectError(() => KerberosName.parse('owen@foo/bar.com'), MalformedKerberosNameError);

    const hadoop = rules(HADOOP_TEST_RULES, 'hadoop');
    expect(expectError(() => hadoop.shortName('foo@ACME.COM'), NoMatchingKerberosRuleError).message).toBe(
      'No rules applied to foo@ACME.COM',
    );
    expectError(() => hadoop.shortName('root/joe@FOO.COM'), NoMatchingKerberosRuleError);

    const mit = rules(HADOOP_TEST_RULES, 'mit');
    expect(mit.shortName('foo@ACME.COM')).toBe('foo@ACME.COM');
    expect(mit.shortName('root/joe@FOO.COM')).toBe('root/joe@FOO.COM');
  });

  it('testParsing: service, host and realm', () => {
    expect(KerberosName.parse('HTTP/abc.com@EXAMPLE.COM')).toMatchObject({
      serviceName: 'HTTP',
      hostName: 'abc.com',
      realm: 'EXAMPLE.COM',
    });
    expect(KerberosName.parse('HTTP/abc.com')).toMatchObject({
      serviceName: 'HTTP',
      hostName: 'abc.com',
      realm: undefined,
    });
    expect(KerberosName.parse('HTTP@EXAMPLE.COM')).toMatchObject({
      serviceName: 'HTTP',
      hostName: undefined,
      realm: 'EXAMPLE.COM',
    });
  });

  it('testToLowerCase: /L lower-cases the result of the rule', () => {
    const r = rules(
      [
        'RULE:[1:$1]/L',
        'RULE:[2:$1]/L',
        'RULE:[2:$1;$2](^.*;admin$)s/;admin$///L',
        'RULE:[2:$1;$2](^.*;guest$)s/;guest$//g/L',
        'DEFAULT',
      ].join('\n'),
    );
    expect(r.shortName('Joe@FOO.COM')).toBe('joe');
    expect(r.shortName('Joe/root@FOO.COM')).toBe('joe');
    expect(r.shortName('Joe/admin@FOO.COM')).toBe('joe');
    expect(r.shortName('Joe/guestguest@FOO.COM')).toBe('joe');
  });

  it('testInvalidRuleMechanism: only hadoop and mit, in any case', () => {
    expect(expectError(() => rules('DEFAULT', 'INVALID_MECHANISM'), KerberosNameRulesError).message).toBe(
      'Invalid rule mechanism: INVALID_MECHANISM',
    );
    expect(rules('DEFAULT', 'MIT').mechanism).toBe('mit');
    expect(new KerberosNameRules('DEFAULT', { defaultRealm: REALM }).mechanism).toBe('hadoop');
  });
});

describe('KerberosNameRules', () => {
  it('DEFAULT maps the default realm only: one or two components to the first', () => {
    const r = rules('DEFAULT');
    expect(r.shortName(`client@${REALM}`)).toBe('client');
    expect(r.shortName(`client/host@${REALM}`)).toBe('client');
    expectError(() => r.shortName('client@OTHER.COM'), NoMatchingKerberosRuleError, {
      code: 'ERR_KERBEROS_NO_MATCHING_RULE',
      retriable: false,
    });
    // With no default realm (no krb5.conf), DEFAULT maps nothing that has a realm.
    expectError(
      () => new KerberosNameRules('DEFAULT', { defaultRealm: '' }).shortName(`client@${REALM}`),
      NoMatchingKerberosRuleError,
    );
  });

  it('returns a name without realm or instance as it is, and refuses service/host without a realm under hadoop', () => {
    const r = rules('DEFAULT');
    expect(r.shortName('alice')).toBe('alice');
    expect(r.shortName('a/b/c')).toBe('a/b/c'); // no @: Hadoop keeps it whole as a simple name
    expect(expectError(() => r.shortName('HTTP/host'), NoMatchingKerberosRuleError).message).toBe(
      'No rules applied to HTTP/host',
    );
    expect(rules('DEFAULT', 'mit').shortName('HTTP/host')).toBe('HTTP/host');
    // A format naming the missing realm prints it as Java prints null.
    expect(rules('RULE:[2:$1-$0]').shortName('HTTP/host')).toBe('HTTP-null');
  });

  it('refuses a result with / or @ under hadoop, naming the rule, and allows it under mit', () => {
    const text = 'RULE:[2:$1/$2]';
    const err = expectError(() => rules(text).shortName(`nn/host@${REALM}`), NoMatchingKerberosRuleError);
    expect(err.message).toBe('Non-simple name nn/host after auth_to_local rule RULE:[2:$1/$2]');
    expect(rules(text, 'mit').shortName(`nn/host@${REALM}`)).toBe('nn/host');
    expect(rules('RULE:[1:$1@$0]', 'mit').shortName('u@R.COM')).toBe('u@R.COM');
  });

  it('applies the first rule that matches, in order', () => {
    const r = rules('RULE:[1:$1](a.*)s/a/A/ RULE:[1:$1]s/.*/second/ DEFAULT');
    expect(r.shortName('abc@X.COM')).toBe('Abc');
    expect(r.shortName('xyz@X.COM')).toBe('second');
  });

  it('s/// replaces the first match, and every match with g', () => {
    expect(rules('RULE:[1:$1]s/o/0/').shortName('foo@X.COM')).toBe('f0o');
    expect(rules('RULE:[1:$1]s/o/0/g').shortName('foo@X.COM')).toBe('f00');
  });

  it("uses Java's replacement syntax: $n groups, \\ escapes, digits only while they name a group", () => {
    expect(rules('RULE:[1:$1]s/(.*)-(.*)/$2.$1/').shortName('a-b@X.COM')).toBe('b.a');
    expect(rules('RULE:[1:$1]s/(x)/$10/').shortName('x@X.COM')).toBe('x0'); // one group: $1 then "0"
    expect(rules('RULE:[1:$1]s/x/\\$y/', 'mit').shortName('x@X.COM')).toBe('$y');
    expect(rules('RULE:[1:$1]s/(?<first>.)/${first}${first}/').shortName('ab@X.COM')).toBe('aab');
  });

  it('ignores /L after DEFAULT, as Hadoop does', () => {
    expect(rules('DEFAULT/L').shortName(`Joe@${REALM}`)).toBe('Joe');
    expect(rules('DEFAULT/L').toString()).toBe('DEFAULT');
  });

  it('prints the rules as Hadoop does', () => {
    expect(rules(`  ${HADOOP_TEST_RULES}\n  RULE:[1:$1]s/a/b/g/L `).toString()).toBe(
      `${HADOOP_TEST_RULES}\nRULE:[1:$1]s/a/b/g/L`,
    );
  });

  it.each([
    ['FOO', 'Invalid rule: FOO'],
    ['DEFAULT RULE:[1:$1', 'Invalid rule:  RULE:[1:$1'], // the rest as Hadoop quotes it, space included
    ['RULE:[:$1]', 'Invalid rule: the component count "" of RULE:[:$1] is not a number'],
    ['RULE:[1:$1](a[)', 'Invalid regular expression "a["'],
    ['RULE:[1:$1]s/(a)/$2/', 'Invalid replacement "$2" in RULE:[1:$1]s/(a)/$2/: No group 2'],
    ['RULE:[1:$1]s/a/b\\/', 'character to be escaped is missing'], // Java fails on its first use
  ])('refuses %j when it is read', (text, message) => {
    const err = expectError(() => rules(text), KerberosNameRulesError, { code: 'ERR_KERBEROS_NAME_RULES' });
    expect(err.message).toContain(message);
    expect(err.rules).toBe(text);
  });

  it('refuses a format it cannot fill when a principal reaches it', () => {
    expect(expectError(() => rules('RULE:[1:$x]').shortName('a@X.COM'), KerberosNameRulesError).message).toBe(
      'bad format in username mapping in ',
    );
    expect(expectError(() => rules('RULE:[1:$2]').shortName('a@X.COM'), KerberosNameRulesError).message).toBe(
      'index 2 from $2 is outside of the valid range 0 to 1',
    );
  });

  it('refuses a malformed principal', () => {
    expectError(() => rules('DEFAULT').shortName('a/b/c@X.COM'), MalformedKerberosNameError, {
      code: 'ERR_KERBEROS_NAME_MALFORMED',
    });
  });
});

describe('krb5DefaultRealm', () => {
  const dir = mkdtempSync(join(tmpdir(), 'krb5-realm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads [libdefaults] default_realm, skipping comments and other sections', () => {
    const text =
      '# default_realm = NO.COM\n[realms]\n default_realm = NOT.THIS\n[libdefaults]\n  default_realm = A.COM\n';
    expect(parseKrb5DefaultRealm(text)).toBe('A.COM');
    expect(parseKrb5DefaultRealm('[libdefaults]\n dns_lookup_kdc = false\n')).toBeUndefined();
  });

  it("takes KRB5_CONFIG's first file naming one, and '' when none does", () => {
    const none = join(dir, 'none.conf');
    const some = join(dir, 'krb5.conf');
    writeFileSync(none, '[libdefaults]\n rdns = false\n');
    writeFileSync(some, '[libdefaults]\n default_realm = B.COM\n');
    expect(krb5DefaultRealm({ KRB5_CONFIG: `${join(dir, 'missing')}:${none}:${some}` })).toBe('B.COM');
    expect(krb5DefaultRealm({ KRB5_CONFIG: none })).toBe('');
  });

  it('is what KerberosNameRules uses when no defaultRealm is given', () => {
    const conf = join(dir, 'rules.conf');
    writeFileSync(conf, '[libdefaults]\n default_realm = C.COM\n');
    const saved = process.env['KRB5_CONFIG'];
    process.env['KRB5_CONFIG'] = conf;
    try {
      const r = new KerberosNameRules();
      expect(r.shortName('svc/host@C.COM')).toBe('svc');
      expect(r.defaultRealm).toBe('C.COM');
    } finally {
      if (saved === undefined) delete process.env['KRB5_CONFIG'];
      else process.env['KRB5_CONFIG'] = saved;
    }
  });
});
