// A secure real cluster: Apache Ozone's MiniOzoneCluster with Kerberos for SCM, OM and datanodes
// against a real MIT KDC, block and container tokens, and the SCM's CA; once as is and once with
// gRPC TLS and RPC privacy. Ozone's own Java client logs in from the test user's keytab, writes and
// reads back; a SIMPLE client is refused; an OM delegation token in a token file is all a second
// Java process needs to read. And fastpath's client against it: a Kerberos log-in from the user's
// keytab (privacy with tls), reads and writes with block tokens that Java reads back (with tls:
// over TLS to the datanodes' gRPC and Ratis ports, the CA from the OM's service list), its
// delegation token used by a Java process and Java's by fastpath, and the refusals typed: its own,
// and the OM's of an expired ticket, a ticket for another service, a replayed AP-REQ and garbage.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { connect as tlsConnect } from 'node:tls';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { Credentials, Token } from '@fastpath/hadoop-common';
import {
  createHadoopRpcClient,
  createKerberosSaslMechanism,
  type HadoopRpcProtection,
  HadoopRpcKerberosError,
  RemoteException,
  type SaslMechanism,
} from '@fastpath/hadoop-rpc';
import { aimedAt, sendingAsKerberos, tapped } from '@fastpath/hadoop-rpc/testing';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import {
  createOzoneClient,
  type OzoneClient,
  type OzoneClientOptions,
  type OzoneSecurityOptions,
} from '@fastpath/ozone-fs-client';
import {
  OZONE_CLIENT_PRINCIPAL,
  OZONE_DATANODE_TLS_HOST,
  OZONE_SERVICE_PRINCIPAL,
  OzoneKeyReadError,
  startRealOzoneCluster,
  type RealOzoneCluster,
} from '@fastpath/ozone-fixture';
import {
  contractKeyBytes,
  describeOzoneContract,
  describeOzoneWrites,
  type OzoneClusterAdapter,
  standaloneGetBlock,
  type OzoneContractCapabilities,
} from '@fastpath/ozone-fs-client/testing/contract';
import { fastpathOzone } from './support/fastpath-ozone-cli.js';
import { realClusterAdapter } from './support/real-cluster-adapter.js';

// processEnv: fastpath's client runs libkrb5 in this process, which must know the realm.
const kdc = useKdc({ processEnv: true });

const KEY = { volume: 'secure', bucket: 'bucket1', key: 'key1', size: 5_000_000, seed: 11 } as const;

// The suites' parts a secure cluster runs here: reads and writes with Ozone's Java client beside
// fastpath. The damaged-replica and stopped-datanode cases, the datanode counters and the largest
// sizes run on the plain real cluster (real-ozone-contract, real-ozone-write), not again here.
const SECURE_CONTRACT_CAPABILITIES: Readonly<OzoneContractCapabilities> = Object.freeze({
  corruptReplica: false,
  stopDatanode: false,
  fastpathWrites: true,
  datanodeCounters: false,
  javaClient: true,
  largeKeyBytes: 8 * 1024 * 1024,
  wholeBlockWrites: false,
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Whether a TLS handshake with `address` succeeds and the server's chain verifies against `ca`. */
function tlsHandshake(address: string, ca: Buffer): Promise<{ ok: boolean; detail: string }> {
  const at = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: address.slice(0, at),
      port: Number(address.slice(at + 1)),
      ca,
      ALPNProtocols: ['h2'],
      // The certificate names the datanode's host; what matters here is the chain to the CA.
      checkServerIdentity: () => undefined,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, detail: 'no handshake within 10 s' });
    }, 10_000);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const detail = socket.authorized ? 'authorized' : String(socket.authorizationError);
      socket.destroy();
      resolve({ ok: socket.authorized, detail });
    });
    socket.once('error', (err: Error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: err.message });
    });
  });
}

describe.each([{ tls: false }, { tls: true }])('a secure real Ozone cluster (tls: $tls)', ({ tls }) => {
  let cluster: RealOzoneCluster | undefined;
  const running = (): RealOzoneCluster => {
    if (cluster === undefined) throw new Error('the cluster did not start');
    return cluster;
  };

  beforeAll(async () => {
    // With TLS, three datanodes: the contract suite runs there too, on pipelines of three.
    // One datanode without TLS: the OM's default replication is then ONE (what fs -put gets).
    cluster = await startRealOzoneCluster({
      datanodes: tls ? 3 : 1,
      security: { kdc, tls },
      ...(tls ? {} : { configuration: { 'ozone.server.default.replication': '1' } }),
    });
  }, 420_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 120_000);

  it('starts with Kerberos, tokens and the SCM CA configured, and says what a client needs', async () => {
    const security = running().security;
    if (security === undefined) throw new Error('no security on a secure cluster');
    const service = `${OZONE_SERVICE_PRINCIPAL}@${kdc.realm}`;
    expect(security).toMatchObject({
      realm: kdc.realm,
      servicePrincipal: service,
      omPrincipal: service,
      userPrincipal: `${OZONE_CLIENT_PRINCIPAL}@${kdc.realm}`,
      userShortName: OZONE_CLIENT_PRINCIPAL,
      tls,
      rpcProtection: tls ? 'privacy' : 'authentication',
    });
    expect(security.configuration).toMatchObject({
      'ozone.security.enabled': 'true',
      'hadoop.security.authentication': 'kerberos',
      'ozone.om.kerberos.principal': service,
      'hdds.scm.kerberos.principal': service,
      'hdds.datanode.kerberos.principal': service,
      'hdds.block.token.enabled': 'true',
      'hdds.container.token.enabled': 'true',
      'hdds.grpc.tls.enabled': String(tls),
      'hadoop.rpc.protection': tls ? 'privacy' : 'authentication',
    });
    // The client configuration is the cluster's, as a client process reads it.
    const site = await readFile(security.clientConfigPath, 'utf8');
    expect(site).toContain('<name>ozone.security.enabled</name><value>true</value>');
    expect(site).toContain(`<name>ozone.om.kerberos.principal</name><value>${service}</value>`);
    // The OM hands its clients the SCM's root CA certificate.
    expect(await readFile(security.caCertificatePath, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    // The service logged in from its keytab at the KDC.
    const kdcLog = await readFile(kdc.logFile, 'utf8');
    expect(kdcLog).toContain(`${service} for krbtgt/${kdc.realm}@${kdc.realm}`);
  });

  it("Ozone's Java client, logged in from the test user's keytab, writes a key and reads it back", async () => {
    const c = running();
    const [written] = await c.writeKeys([KEY]);
    const expected = sha256(contractKeyBytes(KEY.size, KEY.seed));
    expect(written?.sha256).toBe(expected);
    expect(await c.readKeyWithJava(KEY.volume, KEY.bucket, KEY.key)).toEqual({
      bytesRead: KEY.size,
      sha256: expected,
    });
    // The connection to the OM authenticated with a service ticket the test user asked the KDC
    // for, and the OM recorded that user as the key's owner.
    const kdcLog = await readFile(kdc.logFile, 'utf8');
    expect(kdcLog).toContain(
      `${OZONE_CLIENT_PRINCIPAL}@${kdc.realm} for ${OZONE_SERVICE_PRINCIPAL}@${kdc.realm}`,
    );
    const inspected = await c.inspectKeyWithJava(KEY.volume, KEY.bucket, KEY.key);
    expect(inspected).toMatchObject({
      owner: OZONE_CLIENT_PRINCIPAL,
      clientUser: `${OZONE_CLIENT_PRINCIPAL}@${kdc.realm}`,
      clientAuthMethod: 'KERBEROS',
    });
  }, 300_000);

  it("hands out a block token with every block of the key, for the key's reader", async () => {
    const inspected = await running().inspectKeyWithJava(KEY.volume, KEY.bucket, KEY.key);
    expect(inspected.blocks.length).toBeGreaterThan(0);
    const now = Date.now();
    for (const block of inspected.blocks) {
      const blockId = `conID: ${block.containerId} locID: ${block.localId}`;
      expect(block.token).toMatchObject({ kind: 'HDDS_BLOCK_TOKEN', blockId });
      // The service on the wire is the block id with NUL bytes after it: the OM sends the whole
      // backing array of the service's Text (OMPBHelper#protoFromToken, Text#getBytes).
      const service = block.token?.service ?? '';
      expect(service.startsWith(blockId)).toBe(true);
      expect([...service.slice(blockId.length)].every((c) => c === '\u0000')).toBe(true);
      expect(block.token?.ownerId).toBe(OZONE_CLIENT_PRINCIPAL);
      expect(block.token?.modes).toContain('READ');
      expect(block.token?.expiryDateMs).toBeGreaterThan(now);
      expect(block.token?.secretKeyId).toMatch(/^[0-9a-f-]{36}$/);
      expect(block.token?.passwordBytes).toBeGreaterThan(0);
    }
  }, 120_000);

  it('refuses a client that does not authenticate (SIMPLE)', async () => {
    const read = running().readKeyInJavaProcess(KEY.volume, KEY.bucket, KEY.key, { simpleUser: 'mallory' });
    await expect(read).rejects.toThrow(OzoneKeyReadError);
    await expect(read).rejects.toThrow(/SIMPLE authentication is not enabled/);
  }, 180_000);

  it('an OM delegation token in a token file is all a second Java process needs to read the key', async () => {
    const c = running();
    const token = await c.fetchDelegationToken({ renewer: OZONE_CLIENT_PRINCIPAL });
    const omPort = c.omRpcAddress.slice(c.omRpcAddress.lastIndexOf(':') + 1);
    expect(token).toMatchObject({
      kind: 'OzoneToken',
      service: `127.0.0.1:${omPort}`,
      owner: `${OZONE_CLIENT_PRINCIPAL}@${kdc.realm}`,
      renewer: OZONE_CLIENT_PRINCIPAL,
    });
    expect(token.maxDateMs).toBeGreaterThan(token.issueDateMs);
    // Hadoop's token storage file: "HDTS", then the Writable format (0).
    const file = await readFile(token.tokenFile);
    expect(file.subarray(0, 5)).toEqual(Buffer.from([0x48, 0x44, 0x54, 0x53, 0x00]));

    const read = await c.readKeyInJavaProcess(KEY.volume, KEY.bucket, KEY.key, {
      tokenFile: token.tokenFile,
    });
    expect(read).toMatchObject({
      bytesRead: KEY.size,
      sha256: sha256(contractKeyBytes(KEY.size, KEY.seed)),
      hasKerberosCredentials: false,
      tokens: 1,
    });
    // The same process without the token has nothing to authenticate with.
    await expect(
      c.readKeyInJavaProcess(KEY.volume, KEY.bucket, KEY.key, { tokenFile: `${token.tokenFile}.absent` }),
    ).rejects.toThrow(OzoneKeyReadError);
  }, 300_000);

  describe("fastpath's client", () => {
    let dir: string;
    const clients: OzoneClient[] = [];
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fastpath-secure-'));
      // No ticket cache: every log-in below is from a keytab or a token, or refused.
      await setNativeEnvironment({ KRB5CCNAME: `FILE:${dir}/no-ticket-cache` });
    });
    afterAll(async () => {
      for (const c of clients) c.close();
      await rm(dir, { recursive: true, force: true });
    });
    const fastpath = (security: OzoneSecurityOptions): OzoneClient => {
      const c = running();
      const client = createOzoneClient({
        omAddress: c.omRpcAddress,
        // With TLS (hdds.grpc.tls.enabled in the cluster's configuration) the datanodes' CA comes
        // from the OM's service list. Their certificates name them by the cluster's TLS host name,
        // which resolves only in the cluster's JVMs: fastpath dials their addresses and checks
        // that name (OZONE_DATANODE_TLS_HOST).
        properties: { ...c.security?.configuration },
        ...(tls ? { tls: { serverNameOverride: OZONE_DATANODE_TLS_HOST } } : {}),
        security,
        omTimeoutMs: 30_000,
      });
      clients.push(client);
      return client;
    };
    const asUser = (): OzoneSecurityOptions => {
      const security = running().security;
      if (security === undefined) throw new Error('no security');
      return { kerberos: { principal: security.userPrincipal, keytab: security.userKeytab } };
    };

    it('logs in from the user’s keytab; reads the key Java wrote (block tokens), writes one Java reads back', async () => {
      const client = fastpath(asUser());
      const info = await client.getKeyInfo(KEY.volume, KEY.bucket, KEY.key);
      expect(info.sizeBytes).toBe(KEY.size);
      expect(info.blocks.every((b) => typeof b.encodedToken === 'string')).toBe(true);
      const expected = sha256(contractKeyBytes(KEY.size, KEY.seed));
      expect(sha256(await client.readKey(KEY.volume, KEY.bucket, KEY.key))).toBe(expected);
      const mine = contractKeyBytes(6_000_000, 23);
      // One datanode: one replica, as the cluster's Java writer uses.
      await client.writeKey(KEY.volume, KEY.bucket, 'by-fastpath', mine, { replication: 'ONE' });
      expect(await running().readKeyWithJava(KEY.volume, KEY.bucket, 'by-fastpath')).toEqual({
        bytesRead: mine.length,
        sha256: sha256(mine),
      });
      const inspected = await running().inspectKeyWithJava(KEY.volume, KEY.bucket, 'by-fastpath');
      expect(inspected.owner).toBe(OZONE_CLIENT_PRINCIPAL);
    }, 300_000);

    // Only the TLS variant has certificates to check (defined there only: nothing is skipped).
    if (tls)
      it('over TLS, a datanode certificate without the name checked is refused, typed, and nothing is written', async () => {
        const c = running();
        // No serverNameOverride: the certificates name the datanodes, not 127.0.0.1 that is dialled.
        const client = createOzoneClient({
          omAddress: c.omRpcAddress,
          properties: { ...c.security?.configuration },
          security: asUser(),
        });
        clients.push(client);
        const write = await client
          .writeKey(KEY.volume, KEY.bucket, 'wrong-name', contractKeyBytes(10_000, 3), { replication: 'ONE' })
          .catch((e: unknown) => e);
        expect(write).toMatchObject({
          code: 'ERR_RATIS_TLS',
          cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
        });
        await expect(client.getKeyInfo(KEY.volume, KEY.bucket, 'wrong-name')).rejects.toMatchObject({
          code: 'ERR_OZONE_KEY_NOT_FOUND',
        });
      }, 120_000);

    // The command line as a user runs it (without TLS: the CLI has no option for the TLS
    // variant's certificate name; its client is the same as above).
    if (!tls)
      it('fastpath-ozone: dtutil get from a keytab, then fs -put and -cat with only the token file', async () => {
        const c = running();
        const security = c.security;
        if (security === undefined) throw new Error('no security');
        const conf = ['--conf', security.clientConfigPath];
        const file = join(dir, 'cli.tokens');
        const login = ['--keytab', security.userKeytab, '--principal', security.userPrincipal];
        const get = await fastpathOzone({}, 'dtutil', ...conf, ...login, 'get', '--om', c.omRpcAddress, file);
        expect(get).toMatchObject({ code: 0 });
        // No ticket cache at all: the token file is the only credential.
        const env = { HADOOP_TOKEN_FILE_LOCATION: file, KRB5CCNAME: `FILE:${dir}/none` };
        const root = `ofs://${c.omRpcAddress}/${KEY.volume}/${KEY.bucket}`;
        const cat = await fastpathOzone(env, 'fs', ...conf, '-cat', `${root}/${KEY.key}`);
        expect({ code: cat.code, sha256: sha256(cat.stdout) }).toEqual({
          code: 0,
          sha256: sha256(contractKeyBytes(KEY.size, KEY.seed)),
        });
        const local = join(dir, 'put.bin');
        const bytes = contractKeyBytes(700_000, 31);
        await writeFile(local, bytes);
        const put = await fastpathOzone(
          env,
          'fs',
          ...conf,

          '-put',
          local,
          `${root}/by-cli`,
        );
        expect({ code: put.code, stderr: put.stderr }).toEqual({ code: 0, stderr: '' });
        expect(await c.readKeyWithJava(KEY.volume, KEY.bucket, 'by-cli')).toEqual({
          bytesRead: bytes.length,
          sha256: sha256(bytes),
        });
        // Without the token file and without a ticket: refused, one line, exit 1.
        const refused = await fastpathOzone(
          { KRB5CCNAME: `FILE:${dir}/none` },
          'fs',
          ...conf,
          '-cat',
          `${root}/${KEY.key}`,
        );
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/ticket|Kerberos/i);
      }, 300_000);

    it('its delegation token serves a Java process with no ticket, and Java’s serves fastpath', async () => {
      const c = running();
      const token = (await fastpath(asUser()).getDelegationToken(OZONE_CLIENT_PRINCIPAL)) as Token;
      const omPort = c.omRpcAddress.slice(c.omRpcAddress.lastIndexOf(':') + 1);
      expect(token).toMatchObject({ kind: 'OzoneToken', service: `127.0.0.1:${omPort}` });
      const file = join(dir, 'fastpath.tokens');
      await new Credentials({ tokens: new Map([[token.service, token]]) }).writeFile(file);
      expect(
        await c.readKeyInJavaProcess(KEY.volume, KEY.bucket, KEY.key, { tokenFile: file }),
      ).toMatchObject({
        bytesRead: KEY.size,
        hasKerberosCredentials: false,
        tokens: 1,
      });

      const javas = await c.fetchDelegationToken({ renewer: OZONE_CLIENT_PRINCIPAL });
      const withJavas = fastpath({ credentials: await Credentials.readFile(javas.tokenFile) });
      expect((await withJavas.getKeyInfo(KEY.volume, KEY.bucket, KEY.key)).sizeBytes).toBe(KEY.size);
      expect(sha256(await withJavas.readKey(KEY.volume, KEY.bucket, KEY.key))).toBe(
        sha256(contractKeyBytes(KEY.size, KEY.seed)),
      );
      // With only that token (no ticket), it writes too: Java reads the key back.
      const tokenWritten = contractKeyBytes(300_000, 41);
      await withJavas.writeKey(KEY.volume, KEY.bucket, 'by-token', tokenWritten, { replication: 'ONE' });
      expect(await c.readKeyWithJava(KEY.volume, KEY.bucket, 'by-token')).toEqual({
        bytesRead: tokenWritten.length,
        sha256: sha256(tokenWritten),
      });
      // Renewed and cancelled by fastpath: Java's process holding it is then refused.
      const asTest = fastpath(asUser());
      expect(await asTest.renewDelegationToken(token)).toBeGreaterThan(Date.now());
      await asTest.cancelDelegationToken(token);
      await expect(
        c.readKeyInJavaProcess(KEY.volume, KEY.bucket, KEY.key, { tokenFile: file }),
      ).rejects.toThrow(OzoneKeyReadError);
    }, 300_000);

    it('refuses, typed: no ticket, SIMPLE, a forged token; Ozone’s OM refuses a token its secret did not sign', async () => {
      const noTicket = await fastpath({ kerberos: true })
        .getKeyInfo(KEY.volume, KEY.bucket, KEY.key)
        .catch((e: unknown) => e);
      expect(noTicket).toBeInstanceOf(HadoopRpcKerberosError);
      expect(noTicket).toMatchObject({ reason: 'no-ticket' });

      const simple = await createOzoneClient({
        omAddress: running().omRpcAddress,
        properties: {
          'ozone.om.transport.class': 'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory',
        },
      })
        .getKeyInfo(KEY.volume, KEY.bucket, KEY.key)
        .catch((e: unknown) => e);
      expect(simple).toBeInstanceOf(Error);
      expect(String(simple)).toMatch(/SIMPLE|authentication/i);

      const javas = await running().fetchDelegationToken({ renewer: OZONE_CLIENT_PRINCIPAL });
      const real = [...(await Credentials.readFile(javas.tokenFile)).tokens.values()][0] as Token;
      const forged = new Token({ ...real, password: new Redacted(Buffer.alloc(32, 5)) });
      const refused = await fastpath({ credentials: new Credentials({ tokens: new Map([['f', forged]]) }) })
        .getKeyInfo(KEY.volume, KEY.bucket, KEY.key)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RemoteException);
      expect((refused as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
      expect(String(refused)).not.toContain(Buffer.alloc(32, 5).toString('base64'));
    }, 300_000);
    // Ozone's OM is the peer here: its refusals of what an attacker sends at the SASL step, read
    // by fastpath's RPC client as typed errors; the OM serves a genuine client on after them.
    it('Ozone’s OM refuses an expired ticket, a ticket for another service, a replayed AP-REQ and garbage; it serves on', async () => {
      const c = running();
      const protection = [
        (c.security?.configuration['hadoop.rpc.protection'] ?? 'authentication') as HadoopRpcProtection,
      ];
      const serverPrincipal = c.security?.configuration['ozone.om.kerberos.principal'];
      if (serverPrincipal === undefined) throw new Error('no OM principal in the configuration');
      // The OM protocol with an empty request: the answer (or its refusal) comes after the SASL
      // step, which is what is attacked here.
      const submit = (mechanisms: SaslMechanism[]) => {
        const client = createHadoopRpcClient({ authProtocol: 'sasl', saslMechanisms: mechanisms });
        return client
          .call({
            address: c.omRpcAddress,
            protocol: 'org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol',
            protocolVersion: 1,
            method: 'submitRequest',
            request: new Uint8Array(0),
          })
          .then(
            () => 'answered',
            (e: unknown) => e,
          )
          .finally(() => client.close());
      };
      const unauthorized = (e: unknown) =>
        e instanceof RemoteException && e.errorDetail === 'FATAL_UNAUTHORIZED';

      // A ticket that has ended: refused by the client before anything is sent.
      const expiring = await kdc.addPrincipal(`expiring-${tls ? 'tls' : 'plain'}`);
      await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit(expiring, { lifetimeSeconds: 1 }) });
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await submit([createKerberosSaslMechanism({ serverPrincipal, protection })])).toMatchObject({
        code: 'ERR_HADOOP_RPC_KERBEROS',
        reason: 'expired-ticket',
      });
      await setNativeEnvironment({ KRB5CCNAME: `FILE:${dir}/no-ticket-cache` });

      // A genuine log-in as the test user, its AP-REQ copied on the way out.
      const security = c.security;
      if (security === undefined) throw new Error('no security');
      const login = { principal: security.userPrincipal, keytab: security.userKeytab, protection };
      const taken: Uint8Array[] = [];
      const genuine = await submit([
        tapped(createKerberosSaslMechanism({ serverPrincipal, ...login }), taken),
      ]);
      expect(unauthorized(genuine)).toBe(false);
      expect(taken).toHaveLength(1);

      // A ticket for another service (one the OM holds no key of), a replay of the genuine
      // AP-REQ, garbage and an empty token: each refused by the OM (FATAL_UNAUTHORIZED).
      const other = await kdc.addPrincipal(`other-${tls ? 'tls' : 'plain'}/localhost`);
      const astray = aimedAt(
        createKerberosSaslMechanism({ serverPrincipalPattern: '*', ...login }),
        other.slice(0, other.indexOf('/')),
      );
      for (const attack of [
        astray,
        sendingAsKerberos(taken[0] as Uint8Array),
        sendingAsKerberos(randomBytes(600)),
        sendingAsKerberos(new Uint8Array(0)),
      ]) {
        const refused = await submit([attack]);
        expect(unauthorized(refused)).toBe(true);
      }
      // Still serving: a genuine client reads the key.
      expect((await fastpath(asUser()).getKeyInfo(KEY.volume, KEY.bucket, KEY.key)).sizeBytes).toBe(KEY.size);
    }, 120_000);
  });

  // The client contract and the write contract as the Kerberos user, over TLS to every datanode
  // port (the CA from the OM), with block tokens: Ozone's Java client writes the keys fastpath
  // reads and reads back every key fastpath writes. Only on the TLS variant (defined there only).
  if (tls)
    describe('the contract suites as a Kerberos user over TLS', () => {
      let adapter: OzoneClusterAdapter;
      let inspector: OzoneClient;
      beforeAll(async () => {
        const c = running();
        const security = c.security;
        if (security === undefined) throw new Error('no security');
        const caPem = await readFile(security.caCertificatePath, 'utf8');
        const clientOptions: Partial<OzoneClientOptions> = {
          userName: OZONE_CLIENT_PRINCIPAL,
          properties: { ...security.configuration },
          security: { kerberos: { principal: security.userPrincipal, keytab: security.userKeytab } },
        };
        inspector = createOzoneClient({
          omAddress: c.omRpcAddress,
          tls: { serverNameOverride: OZONE_DATANODE_TLS_HOST },
          ...clientOptions,
        });
        adapter = {
          ...realClusterAdapter(c, inspector),
          omAddress: c.omRpcAddress,
          // The CA given as configuration here (the other cases take it from the OM): the suites
          // also check each replica with a GetBlock of their own, over TLS with its block token.
          tls: { ca: caPem, serverNameOverride: OZONE_DATANODE_TLS_HOST },
          clientOptions,
        };
      });
      afterAll(() => inspector?.close());
      describeOzoneContract(() => adapter, SECURE_CONTRACT_CAPABILITIES);
      describeOzoneWrites(() => adapter, SECURE_CONTRACT_CAPABILITIES);

      it('a datanode refuses a block token of another block, and none, and serves the block’s own', async () => {
        const tlsAccess = adapter.tls as { ca: string; serverNameOverride: string };
        const access = {
          tls: { ca: Buffer.from(tlsAccess.ca), serverNameOverride: tlsAccess.serverNameOverride },
        };
        const [java] = (await inspector.getKeyInfo(KEY.volume, KEY.bucket, KEY.key)).blocks;
        const [mine] = (await inspector.getKeyInfo(KEY.volume, KEY.bucket, 'by-fastpath')).blocks;
        if (java === undefined || mine === undefined) throw new Error('no blocks');
        const dn = java.datanodes[0] as { uuid: string; address: string };
        const get = (encodedToken: string | undefined) =>
          standaloneGetBlock(dn.address, dn.uuid, { ...java, encodedToken }, access);
        expect(await get(java.encodedToken)).toMatchObject({ result: 'SUCCESS' });
        // Ozone's Result BLOCK_TOKEN_VERIFICATION_FAILED (41).
        expect(await get(mine.encodedToken)).toMatchObject({ result: 41 });
        expect(await get(undefined)).toMatchObject({ result: 41 });
      });
    });

  it(
    tls
      ? "serves the datanode's gRPC over TLS with a certificate of the SCM's CA"
      : "serves the datanode's gRPC without TLS",
    async () => {
      const c = running();
      const ca = await readFile(c.security?.caCertificatePath ?? '');
      const datanode = c.datanodes[0];
      if (datanode === undefined) throw new Error('no datanode');
      const handshake = await tlsHandshake(datanode.standaloneAddress, ca);
      expect(handshake.ok).toBe(tls);
      if (tls) expect(handshake.detail).toBe('authorized');
    },
    60_000,
  );
});
