import { describe, expect, it } from '@jest/globals';
import { DebianInstallError, ensureDebianPackages } from '../src/index.js';

// The install path for real, without changing the machine: a package Debian does not have goes
// through apt-get update and apt-get install, which fails, and the error carries apt's answer.
// (The install of a package that exists is shown by the fixtures' first run on a fresh machine:
// the KDC fixture installs MIT Kerberos, the ZooKeeper fixture Debian's zookeeper.)
const canInstall = process.getuid?.() === 0;

describe('ensureDebianPackages installing', () => {
  it('runs apt-get for a missing package and reports apt-get refusing it', async () => {
    const requirement = { file: '/nonexistent/fastpath-missing', debianPackage: 'fastpath-no-such-package' };
    const err = await ensureDebianPackages([requirement], { purpose: 'the install test' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DebianInstallError);
    const message = (err as DebianInstallError).message;
    if (canInstall) {
      expect(message).toContain(
        '"apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends fastpath-no-such-package" failed',
      );
      expect(message).toContain('Unable to locate package fastpath-no-such-package');
    } else {
      expect(message).toContain('not root');
    }
  }, 600_000);
});
