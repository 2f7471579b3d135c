import { spawn } from 'node:child_process';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import { readJvmEnvironment } from './environment.js';
import { findExecutable, isFile } from './find-executable.js';
import { DebianInstallError } from './jvm-errors.js';

/**
 * Something a fixture needs on the machine, and the Debian package that provides it: an
 * executable looked up on the PATH (`command`) or a file at a fixed place (`file`).
 */
export type DebianRequirement =
  | { readonly command: string; readonly debianPackage: string }
  | { readonly file: string; readonly debianPackage: string };

/** Options of {@link ensureDebianPackages}. */
export interface EnsureDebianPackagesOptions {
  /** Install the missing packages when the process runs as root with `apt-get`. Default `true`. */
  installIfMissing?: boolean;
  /** Upper bound for `apt-get update` and `apt-get install` together, in milliseconds. Default 600000. */
  installTimeoutMs?: number;
  /** Who needs the packages: the start of the message when they cannot be installed (e.g. `the KDC fixture`). */
  purpose?: string;
}

/** Defaults of {@link EnsureDebianPackagesOptions}. */
export const DEFAULT_ENSURE_DEBIAN_PACKAGES_OPTIONS = Object.freeze({
  installIfMissing: true,
  installTimeoutMs: 600_000,
  purpose: 'the tests',
});

/** What the machine allows, as {@link planDebianInstall} weighs it. */
export interface InstallAbility {
  readonly installIfMissing: boolean;
  /** The process's user id (`undefined` where there is none, e.g. Windows). */
  readonly uid: number | undefined;
  /** Whether `apt-get` is on the PATH. */
  readonly aptGet: boolean;
}

/** What to do about the missing packages. */
export type DebianInstallPlan =
  | { readonly action: 'none' }
  | { readonly action: 'install'; readonly packages: readonly string[] }
  | { readonly action: 'refuse'; readonly packages: readonly string[]; readonly reason: string };

/**
 * The Debian packages of the requirements that are not met, each once, in the order given.
 * `present` says whether a requirement is met (the real check looks at the PATH and the files).
 */
export function missingDebianPackages(
  requirements: readonly DebianRequirement[],
  present: (requirement: DebianRequirement) => boolean,
): string[] {
  const packages: string[] = [];
  for (const requirement of requirements) {
    if (!present(requirement) && !packages.includes(requirement.debianPackage)) {
      packages.push(requirement.debianPackage);
    }
  }
  return packages;
}

/** Decides between nothing to do, installing, and refusing with the reason (pure: no I/O). */
export function planDebianInstall(missing: readonly string[], ability: InstallAbility): DebianInstallPlan {
  if (missing.length === 0) return { action: 'none' };
  const packages = Object.freeze([...missing]);
  if (!ability.installIfMissing) {
    return { action: 'refuse', packages, reason: 'installation is disabled (installIfMissing: false)' };
  }
  if (ability.uid !== 0) {
    return { action: 'refuse', packages, reason: 'this process is not root, so it cannot install them' };
  }
  if (!ability.aptGet) return { action: 'refuse', packages, reason: 'apt-get is not available' };
  return { action: 'install', packages };
}

/** The command that installs `packages` on Debian, as the messages print it. */
export function debianInstallHint(packages: readonly string[]): string {
  return `as root: apt-get update && apt-get install -y ${packages.join(' ')}`;
}

// One apt-get at a time in this process: concurrent fixtures wait for the same run.
let aptQueue: Promise<unknown> = Promise.resolve();

/**
 * Makes sure every requirement is met: finds what is missing, and installs the Debian packages
 * that provide it when the process runs as root with `apt-get` (`apt-get update`, then a
 * non-interactive `apt-get install -y`, which on this kind of machine starts no service).
 * Resolves with the packages it installed (none when everything was there).
 *
 * @throws DebianInstallError when something is missing and cannot be installed, or the install
 *   failed; the message names the packages and the command that installs them
 * @example
 * ```ts
 * await ensureDebianPackages(
 *   [{ command: 'krb5kdc', debianPackage: 'krb5-kdc' }, { file: '/usr/bin/chromium', debianPackage: 'chromium' }],
 *   { purpose: 'the KDC fixture' },
 * );
 * ```
 */
export async function ensureDebianPackages(
  requirements: readonly DebianRequirement[],
  options: EnsureDebianPackagesOptions = {},
): Promise<{ readonly installed: readonly string[] }> {
  const installIfMissing =
    options.installIfMissing ?? DEFAULT_ENSURE_DEBIAN_PACKAGES_OPTIONS.installIfMissing;
  if (typeof installIfMissing !== 'boolean') {
    throw new InvalidOptionError('installIfMissing', `expected a boolean, got ${typeof installIfMissing}`);
  }
  const timeoutMs = checkInteger(
    'installTimeoutMs',
    options.installTimeoutMs ?? DEFAULT_ENSURE_DEBIAN_PACKAGES_OPTIONS.installTimeoutMs,
    1,
  );
  const purpose = options.purpose ?? DEFAULT_ENSURE_DEBIAN_PACKAGES_OPTIONS.purpose;
  const { path } = readJvmEnvironment();
  const present = new Set<DebianRequirement>();
  for (const requirement of requirements) {
    if (await isMet(requirement, path)) present.add(requirement);
  }
  const missing = missingDebianPackages(requirements, (r) => present.has(r));
  const plan = planDebianInstall(missing, {
    installIfMissing,
    uid: process.getuid?.(),
    aptGet: (await findExecutable('apt-get', path)) !== undefined,
  });
  if (plan.action === 'none') return { installed: [] };
  if (plan.action === 'refuse') {
    throw new DebianInstallError(
      `${purpose}: missing ${requirements
        .filter((r) => !present.has(r))
        .map(label)
        .join(', ')}, and ${plan.reason}: ` +
        `install ${plan.packages.join(', ')} (${debianInstallHint(plan.packages)}).`,
      plan.packages,
    );
  }
  const run = aptQueue.then(() => installDebianPackages(plan.packages, timeoutMs, purpose));
  aptQueue = run.catch(() => undefined);
  await run;
  for (const requirement of requirements) {
    if (!(await isMet(requirement, path))) {
      throw new DebianInstallError(
        `installed ${plan.packages.join(', ')} for ${purpose}, but ${label(requirement)} is still missing.`,
        plan.packages,
      );
    }
  }
  return { installed: plan.packages };
}

function label(requirement: DebianRequirement): string {
  return 'command' in requirement ? `"${requirement.command}" on the PATH` : requirement.file;
}

async function isMet(requirement: DebianRequirement, path: string): Promise<boolean> {
  if ('command' in requirement) return (await findExecutable(requirement.command, path)) !== undefined;
  return isFile(requirement.file);
}

async function installDebianPackages(
  packages: readonly string[],
  timeoutMs: number,
  purpose: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const steps: string[][] = [
    ['update'],
    // Waits for a dpkg lock held by a concurrent install (another test process) instead of failing.
    ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', ...packages],
  ];
  for (const args of steps) {
    const result = await runApt(args, Math.max(1, deadline - Date.now()));
    if (result.code !== 0) {
      throw new DebianInstallError(
        `${purpose}: "apt-get ${args.join(' ')}" failed (${result.code === null ? 'timed out' : `exit ${result.code}`}):\n` +
          `${result.outputTail}\nFix the package sources, or install ${packages.join(', ')} (${debianInstallHint(packages)}).`,
        packages,
      );
    }
  }
}

// Not runProcess: apt-get must finish even if a test times out, and a half-killed dpkg would
// leave the machine's package database locked for every later install.
function runApt(args: string[], timeoutMs: number): Promise<{ code: number | null; outputTail: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('apt-get', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-8192);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutMs);
    const finish = (code: number | null): void => {
      clearTimeout(timer);
      resolve({ code: timedOut ? null : code, outputTail: output.split('\n').slice(-20).join('\n') });
    };
    child.on('error', (err) => {
      output += String(err);
      finish(-1);
    });
    child.on('close', (code) => finish(code ?? -1));
  });
}
