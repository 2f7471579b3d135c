// The same behaviours 21-42 (test/support/kms-behaviours.ts) with this client against Apache
// Hadoop's own KMS (3.4.2, KMSWebServer from Maven Central, through @fastpath/hadoop-fixture):
// whatever the suite checks of fastpath's server, Hadoop's answers too, except where the suite
// says fastpath goes beyond Hadoop.
import { startHadoopKms } from '@fastpath/hadoop-fixture';
import { Agent } from 'undici';
import { KmsClient } from '../src/index.js';
import { defineKmsBehaviours, type BehaviourTarget } from './support/kms-behaviours.js';
import { rawRequests, readAuditLines } from './support/real-kms.js';

jest.setTimeout(300_000);

const hadoopTarget: BehaviourTarget = {
  server: 'hadoop',
  async start(options) {
    // `acls` given: exactly those, as the fastpath target writes them; none: Hadoop's shipped defaults.
    const site = { ...options.site };
    // fastpath reads a shared secret file by itself; Hadoop also needs the provider named.
    if (site['hadoop.kms.authentication.signature.secret.file'] !== undefined) {
      site['hadoop.kms.authentication.signer.secret.provider'] = 'file';
    }
    const kms = await startHadoopKms({
      ...(options.acls === undefined ? {} : { acls: options.acls, aclDefaults: false }),
      site,
    });
    const client = new KmsClient({ url: kms.url });
    const agent = new Agent();
    const base = kms.url.replace(/\/kms$/, '');
    return {
      url: kms.url,
      as: (user) => client.withAuth({ user }),
      withAuth: (auth) => client.withAuth(auth),
      raw: rawRequests(base, agent),
      auditLines: () => readAuditLines(kms.auditLogFile),
      now: () => Date.now(),
      // Hadoop's server keeps real time.
      advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      setAcls: (acls) => kms.setAcls(acls),
      async close() {
        await client.close();
        await agent.close();
        await kms.close();
      },
    };
  },
};

describe("KMS behaviours 21-42 against Hadoop's KMS", () => {
  defineKmsBehaviours(hadoopTarget);
});
