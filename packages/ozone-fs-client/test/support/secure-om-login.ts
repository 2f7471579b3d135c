// What the tests of the secure embedded OM share: the settings a client of it needs, and switching
// this process's Kerberos credentials between users' ticket caches and none.
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';

/** The OM's principal (`om/_HOST@<realm>`, `_HOST` from the address) and the protection it asks. */
export function secureOmProperties(realm: string, protection = 'privacy'): Record<string, string> {
  return {
    'ozone.om.kerberos.principal': `om/_HOST@${realm}`,
    'hadoop.rpc.protection': protection,
  };
}

/** Ticket caches of a KDC's users for this process (libkrb5 reads KRB5CCNAME per log-in). */
export function ticketCaches(
  kdc: { kinit(user: string): Promise<string> },
  dir: () => string,
): { asUser: (user: string) => Promise<void>; noTicket: () => Promise<void> } {
  return {
    asUser: async (user) => {
      await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit(user) });
    },
    // A cache file that never exists: no ticket at all.
    noTicket: async () => {
      await setNativeEnvironment({ KRB5CCNAME: `FILE:${dir()}/no-ticket` });
    },
  };
}
