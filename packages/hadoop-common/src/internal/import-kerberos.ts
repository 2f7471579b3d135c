import type { KerberosModule } from '../load-kerberos.js';
import { KerberosUnavailableError, type KerberosUnavailableReason } from '../kerberos-unavailable-error.js';

const BUILD =
  "it builds from source against MIT Kerberos's headers: install Debian's libkrb5-dev " +
  '(as root: apt-get install -y libkrb5-dev; build-essential and python3 for node-gyp)';

const WHAT_TO_DO: Readonly<Record<KerberosUnavailableReason, string>> = Object.freeze({
  missing:
    'Kerberos needs the optional "kerberos" package (mongodb-js, 7.x), which is not installed: ' +
    `${BUILD}, then npm install kerberos@7.0.0`,
  'not-built':
    'Kerberos needs the optional "kerberos" package, whose native part was not built: ' +
    `${BUILD}, then npm rebuild kerberos`,
  'load-failed':
    'Kerberos needs the optional "kerberos" package, whose native part does not load: ' +
    "install MIT Kerberos's GSS-API library (as root: apt-get install -y libgssapi-krb5-2), or rebuild it (npm rebuild kerberos)",
});

/**
 * Imports `specifier` (the `kerberos` package; tests pass others) and sorts a failure into what
 * the user must install. Node's message is kept as `cause` and its first line in the message.
 */
export async function importKerberos(specifier: string): Promise<KerberosModule> {
  let module: { default?: KerberosModule } & Partial<KerberosModule>;
  try {
    // A variable specifier: TypeScript neither resolves nor type-checks it, so compiling fastpath
    // needs neither the package nor its types.
    module = (await import(specifier)) as typeof module;
  } catch (cause) {
    const reason = classify(specifier, cause);
    const first = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0] ?? '';
    throw new KerberosUnavailableError(reason, `${WHAT_TO_DO[reason]} (${first})`, cause);
  }
  const kerberos = (module.default ?? module) as KerberosModule;
  if (typeof kerberos.initializeServer !== 'function' || typeof kerberos.initializeClient !== 'function') {
    throw new KerberosUnavailableError(
      'load-failed',
      `"${specifier}" is not the kerberos package fastpath expects (no initializeServer/initializeClient): install kerberos@7.0.0`,
      undefined,
    );
  }
  return kerberos;
}

function classify(specifier: string, cause: unknown): KerberosUnavailableReason {
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    // The addon's own require fails with the same code, naming the .node file.
    return /\.node\b/.test(message) ? 'not-built' : message.includes(specifier) ? 'missing' : 'not-built';
  }
  return 'load-failed';
}
