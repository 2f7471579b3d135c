// The fastpath-key behaviours (test/support/key-shell-behaviours.ts) against Apache Hadoop's own
// KMS (3.4.2, KMSWebServer from Maven Central, through @fastpath/hadoop-fixture): one KMS for the
// file, each command its own process. Where the answers differ, the suite says so.
import { startHadoopKms } from '@fastpath/hadoop-fixture';
import { defineKeyShellBehaviours } from './support/key-shell-behaviours.js';

// The JVM's start and every command's Node + tsx start: allow for a slow, shared machine.
jest.setTimeout(300_000);

describe("fastpath-key behaviours against Hadoop's KMS", () => {
  defineKeyShellBehaviours({
    server: 'hadoop',
    async start({ acls, site }) {
      const kms = await startHadoopKms({ acls, aclDefaults: false, site });
      return { url: kms.url, close: () => kms.close() };
    },
  });
});
