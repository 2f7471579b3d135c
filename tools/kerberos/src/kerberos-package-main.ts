// `fastpath-kerberos-package`: the root `pretest` step. Exits 0 when the kerberos package loads
// (building it first when it can); when it cannot, it prints why and still exits 0, so that the
// other tests run and the Kerberos ones report KerberosUnavailableError with what to install.
import { ensureKerberosPackage } from './ensure-kerberos-package.js';

try {
  await ensureKerberosPackage();
} catch (err) {
  process.stderr.write(`kerberos package: ${(err as Error).message}\n`);
}
