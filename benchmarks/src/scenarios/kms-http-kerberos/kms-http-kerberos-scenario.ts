import type { Scenario } from '../../harness/index.js';
import { kmsHttpScenario } from '../kms-http/kms-http-scenario.js';
import {
  KMS_HTTP_KERBEROS_FLAGS,
  parseKmsHttpKerberosFlags,
  type KmsHttpSettings,
} from '../kms-http/kms-http-settings.js';

/**
 * `kms-http --auth kerberos` as a scenario of its own, so that `benchmarks:all` runs it in its
 * full profile beside the simple-authentication matrix and reports it in a section of its own.
 * The same run, case by case: only the name, the flags and the description differ.
 */
export const kmsHttpKerberosScenario: Scenario<KmsHttpSettings> = {
  ...kmsHttpScenario,
  name: 'kms-http-kerberos',
  title: "KMS over HTTP with Kerberos: fastpath against Hadoop's KMS, creations by SPNEGO and by cookie",
  description:
    "The kms-http benchmark with every server in Kerberos mode against one real MIT KDC: Hadoop's KMS, " +
    "fastpath's original and fixed, at 100:0 and 90:10. Verification is by delegation token; creation is " +
    'GETDELEGATIONTOKEN with a fresh Kerberos exchange each (SPNEGO, the worst case), then with the ' +
    'hadoop.auth cookie of one log-in (the common case). Beside requests/s, the server CPU per creation, which ' +
    'with SPNEGO is the server CPU per handshake. The same as `kms-http --auth kerberos`.',
  flags: KMS_HTTP_KERBEROS_FLAGS,
  parseFlags: (args, { quick, all }) => parseKmsHttpKerberosFlags(args, quick, all),
};
