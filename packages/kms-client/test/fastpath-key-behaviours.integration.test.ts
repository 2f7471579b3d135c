// The fastpath-key behaviours (test/support/key-shell-behaviours.ts) against @fastpath/kms-server
// on port 0: one server for the file, each command its own process.
import { defineKeyShellBehaviours } from './support/key-shell-behaviours.js';
import { startRealKms } from './support/real-kms.js';

// Every command starts Node and tsx: allow for a slow, shared machine.
jest.setTimeout(120_000);

describe('fastpath-key behaviours against fastpath-kms', () => {
  defineKeyShellBehaviours({
    server: 'fastpath',
    async start({ acls, site }) {
      const kms = await startRealKms({ acls, site });
      return { url: kms.url, close: () => kms.close() };
    },
  });
});
