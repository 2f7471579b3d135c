import { describe, expect, it } from '@jest/globals';
import { InvalidOptionError } from '@fastpath/core';
import {
  debianInstallHint,
  ensureDebianPackages,
  missingDebianPackages,
  planDebianInstall,
  type DebianRequirement,
} from './debian-packages.js';
import { DebianInstallError } from './jvm-errors.js';
import { JAVA_REQUIREMENTS } from './locate-java.js';
import { MAVEN_REQUIREMENTS } from './locate-maven.js';

const kdc: DebianRequirement = { file: '/usr/sbin/krb5kdc', debianPackage: 'krb5-kdc' };
const kdb: DebianRequirement = { file: '/usr/sbin/kdb5_util', debianPackage: 'krb5-kdc' };
const kadmin: DebianRequirement = { file: '/usr/sbin/kadmin.local', debianPackage: 'krb5-admin-server' };
const mvn: DebianRequirement = { command: 'mvn', debianPackage: 'maven' };

describe('missingDebianPackages', () => {
  it('names the package of each unmet requirement once, in order', () => {
    const present = new Set<DebianRequirement>([kadmin]);
    expect(missingDebianPackages([kdc, kdb, kadmin, mvn], (r) => present.has(r))).toEqual([
      'krb5-kdc',
      'maven',
    ]);
  });

  it('is empty when everything is there', () => {
    expect(missingDebianPackages([kdc, mvn], () => true)).toEqual([]);
  });
});

describe('planDebianInstall', () => {
  const root = { installIfMissing: true, uid: 0, aptGet: true };

  it('does nothing when nothing is missing, whoever runs it', () => {
    expect(planDebianInstall([], { installIfMissing: false, uid: 1000, aptGet: false })).toEqual({
      action: 'none',
    });
  });

  it('installs as root with apt-get', () => {
    expect(planDebianInstall(['krb5-kdc', 'maven'], root)).toEqual({
      action: 'install',
      packages: ['krb5-kdc', 'maven'],
    });
  });

  it.each([
    [{ ...root, installIfMissing: false }, /disabled/],
    [{ ...root, uid: 1000 }, /not root/],
    [{ ...root, uid: undefined }, /not root/],
    [{ ...root, aptGet: false }, /apt-get is not available/],
  ])('refuses %j', (ability, reason) => {
    const plan = planDebianInstall(['chromium'], ability);
    expect(plan).toMatchObject({ action: 'refuse', packages: ['chromium'] });
    expect(plan.action === 'refuse' && plan.reason).toMatch(reason);
  });

  it('prints the command that installs them', () => {
    expect(debianInstallHint(['krb5-kdc', 'krb5-user'])).toBe(
      'as root: apt-get update && apt-get install -y krb5-kdc krb5-user',
    );
  });
});

describe('ensureDebianPackages', () => {
  it('resolves with nothing installed when every requirement is met', async () => {
    await expect(
      ensureDebianPackages([
        { command: 'sh', debianPackage: 'dash' },
        { file: '/bin/sh', debianPackage: 'dash' },
      ]),
    ).resolves.toEqual({ installed: [] });
  });

  it('says what to install when installing is disabled', async () => {
    const missing = { file: '/nonexistent/fastpath-tool', debianPackage: 'fastpath-tool' };
    const err = await ensureDebianPackages([missing, { command: 'sh', debianPackage: 'dash' }], {
      installIfMissing: false,
      purpose: 'the widget test',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DebianInstallError);
    expect((err as DebianInstallError).packages).toEqual(['fastpath-tool']);
    expect((err as DebianInstallError).message).toBe(
      'the widget test: missing /nonexistent/fastpath-tool, and installation is disabled (installIfMissing: false): ' +
        'install fastpath-tool (as root: apt-get update && apt-get install -y fastpath-tool).',
    );
  });

  it('checks its options first', async () => {
    const err = await ensureDebianPackages([], { installTimeoutMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).option).toBe('installTimeoutMs');
  });
});

describe('what each fixture installs when something is missing', () => {
  const asRoot = { installIfMissing: true, uid: 0, aptGet: true };
  const plan = (requirements: readonly DebianRequirement[], missing: readonly string[]) =>
    planDebianInstall(
      missingDebianPackages(
        requirements,
        (r) => !('command' in r ? missing.includes(r.command) : missing.includes(r.file)),
      ),
      asRoot,
    );

  it('java or javac → the headless JDK, once', () => {
    expect(plan(JAVA_REQUIREMENTS, ['java', 'javac'])).toEqual({
      action: 'install',
      packages: ['openjdk-17-jdk-headless'],
    });
    expect(plan(JAVA_REQUIREMENTS, ['javac'])).toEqual({
      action: 'install',
      packages: ['openjdk-17-jdk-headless'],
    });
    expect(plan(JAVA_REQUIREMENTS, [])).toEqual({ action: 'none' });
  });

  it('mvn → maven', () => {
    expect(plan(MAVEN_REQUIREMENTS, ['mvn'])).toEqual({ action: 'install', packages: ['maven'] });
  });
});
