import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import {
  DebianInstallError,
  ensureDebianPackages,
  runProcess,
  type DebianRequirement,
} from '@fastpath/jvm-fixture';
import { KerberosNotFoundError } from './kerberos-fixture-errors.js';

/** What building the `kerberos` package from source needs, and the Debian package of each. */
export const KERBEROS_BUILD_REQUIREMENTS: readonly DebianRequirement[] = Object.freeze([
  Object.freeze({ file: '/usr/include/gssapi/gssapi.h', debianPackage: 'libkrb5-dev' }),
  Object.freeze({ command: 'g++', debianPackage: 'g++' }),
  Object.freeze({ command: 'make', debianPackage: 'make' }),
  Object.freeze({ command: 'python3', debianPackage: 'python3' }),
]);

/** Options of {@link ensureKerberosPackage}. */
export interface EnsureKerberosPackageOptions {
  /** The workspace root, where `npm install` runs. Default: the repository holding this package. */
  root?: string;
  /** Install the build's Debian packages when missing (root with `apt-get`). Default `true`. */
  installIfMissing?: boolean;
  /** Bound of `npm install`, in milliseconds. Default 600000. */
  timeoutMs?: number;
  /** Where progress lines go. Default: stderr. */
  log?: (line: string) => void;
}

/** What {@link ensureKerberosPackage} found or did. */
export type KerberosPackageState = 'present' | 'built';

// Through the workspace link, so that it works from ESM (tsx), the CommonJS jest runs, and any
// working directory in the repository.
function repositoryRoot(): string {
  const require = createRequire(join(process.cwd(), 'noop.js'));
  return resolve(dirname(require.resolve('@fastpath/kerberos-fixture/package.json')), '..', '..');
}

/**
 * Makes sure the optional `kerberos` package loads in this workspace. `npm ci` builds it from
 * source and leaves it out, without failing, when MIT Kerberos's headers are missing; this
 * installs what the build needs (Debian's libkrb5-dev and a compiler, as root with `apt-get`)
 * and runs `npm install`, which installs the lockfile's optional packages that are missing.
 * The root `pretest` script runs it, so the test command sets this up on a fresh machine.
 *
 * @throws KerberosNotFoundError when the build's packages are missing and cannot be installed,
 *   or the package still does not load afterwards
 */
export async function ensureKerberosPackage(
  options: EnsureKerberosPackageOptions = {},
): Promise<KerberosPackageState> {
  const root = options.root ?? repositoryRoot();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if ((await loadError(root)) === undefined) return 'present';
  log('kerberos package: missing or not built; installing what its build needs, then npm install');
  try {
    await ensureDebianPackages(KERBEROS_BUILD_REQUIREMENTS, {
      installIfMissing: options.installIfMissing ?? true,
      purpose: 'building the optional kerberos package (Kerberos mode of the KMS and its tests)',
    });
  } catch (err) {
    if (err instanceof DebianInstallError) throw new KerberosNotFoundError(err.message, err.packages, err);
    throw err;
  }
  const npm = await runProcess(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    {
      cwd: root,
      timeoutMs: options.timeoutMs ?? 600_000,
    },
  );
  const still = await loadError(root);
  if (still !== undefined) {
    throw new KerberosNotFoundError(
      `the kerberos package still does not load after npm install (exit ${npm.code}): ${still}\n` +
        `${npm.stderr.trim().split('\n').slice(-20).join('\n')}`,
      ['libkrb5-dev'],
    );
  }
  log('kerberos package: built');
  return 'built';
}

// In a child process: this one may have tried and failed before, and Node keeps no retry state
// worth trusting for a native addon.
async function loadError(root: string): Promise<string | undefined> {
  const result = await runProcess(process.execPath, ['-e', "require('kerberos')"], {
    cwd: root,
    timeoutMs: 60_000,
  });
  return result.code === 0
    ? undefined
    : (result.stderr
        .trim()
        .split('\n')
        .find((l) => l.includes('Error')) ?? 'load failed');
}
