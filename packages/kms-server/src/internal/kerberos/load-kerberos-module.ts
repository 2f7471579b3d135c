import { KmsKerberosError } from '../../kms-errors.js';
import type { KerberosModule } from './kerberos-module.js';

/** The package name, in a variable so that compiling needs neither the package nor its types. */
const PACKAGE = 'kerberos';

let loaded: Promise<KerberosModule> | undefined;

/**
 * Loads the optional `kerberos` package once. Rejects with `ERR_KMS_KERBEROS` saying what to
 * install when it is missing or its native part was not built.
 */
export function loadKerberosModule(): Promise<KerberosModule> {
  loaded ??= import(PACKAGE).then(
    (module: { default?: KerberosModule } & KerberosModule) => module.default ?? module,
    (cause: unknown) => {
      loaded = undefined;
      throw new KmsKerberosError(
        'hadoop.kms.authentication.type',
        'Kerberos authentication needs the "kerberos" package (npm install kerberos@7; its build needs libkrb5-dev): ' +
          `${(cause as Error).message.split('\n')[0] ?? ''}`,
        { cause },
      );
    },
  );
  return loaded;
}
