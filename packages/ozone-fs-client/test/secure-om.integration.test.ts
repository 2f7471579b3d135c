// The client against a secure embedded OM (TOKEN and KERBEROS on its Hadoop RPC port, SIMPLE
// refused) on a real MIT KDC: a Kerberos user works; it gets a delegation token, which a second
// client holding only that token (through a Credentials file, no Kerberos ticket) uses to read
// and write; Ozone's token rules hold (no token for a token, renew by the renewer only, cancel
// ends it); and the refusals are typed, with nothing written: SIMPLE, a forged token, a token for
// another OM, a cancelled token.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { Credentials, Token } from '@fastpath/hadoop-common';
import { HadoopRpcSaslError, RemoteException } from '@fastpath/hadoop-rpc';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import {
  createOzoneClient,
  decodeOzoneTokenIdentifier,
  OmStatusError,
  OZONE_TOKEN_KIND,
  type OzoneClient,
  type OzoneSecurityOptions,
} from '@fastpath/ozone-fs-client';
import { type MiniOzoneCluster, startMiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { PassThrough } from 'node:stream';
import { runOzoneCli } from '../src/cli/ozone-cli.js';
import { getBlockRequest } from '../src/internal/block-requests.js';
import { DatanodeClientManager } from '../src/internal/grpc/datanode-client-manager.js';
import { secureOmProperties, ticketCaches } from './support/secure-om-login.js';

jest.setTimeout(120_000);

const kdc = useKdc({ processEnv: true });
let cluster: MiniOzoneCluster;
let dir: string;
const clients: OzoneClient[] = [];

function client(security: OzoneSecurityOptions, properties: Record<string, string> = {}): OzoneClient {
  const c = createOzoneClient({
    properties: {
      'ozone.om.address': cluster.omRpcAddress,
      ...secureOmProperties(kdc.realm),
      ...properties,
    },
    omTimeoutMs: 10_000,
    security,
  });
  clients.push(c);
  return c;
}

const { asUser, noTicket } = ticketCaches(kdc, () => dir);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secure-om-'));
  const principal = kdc.principal('om/localhost');
  cluster = await startMiniOzoneCluster({
    security: {
      kerberos: { principal, keytab: await kdc.keytab([principal]) },
      protection: ['privacy'],
      blockTokens: true,
    },
  });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => 'succeeded',
    (e: unknown) => e,
  );
}

it('a Kerberos user writes and reads; a delegation token from it serves a process with no ticket', async () => {
  await asUser('alice');
  const alice = client({ kerberos: true });
  await alice.createVolume('secvol');
  await alice.createBucket('secvol', 'bkt');
  await alice.writeKey('secvol', 'bkt', 'by-kerberos', Buffer.from('written with a Kerberos ticket'));

  const token = (await alice.getDelegationToken('alice')) as Token;
  expect(token.kind).toBe(OZONE_TOKEN_KIND);
  expect(token.service).toBe(cluster.omRpcAddress);
  const id = decodeOzoneTokenIdentifier(token.identifier);
  expect(id).toMatchObject({ type: 'DELEGATION_TOKEN', owner: kdc.principal('alice'), renewer: 'alice' });
  expect(id.maxDate).toBeGreaterThan(Date.now());

  // The file a YARN container would be given, and a process with nothing else.
  const file = join(dir, 'tokens');
  await new Credentials({ tokens: new Map([[token.service, token]]) }).writeFile(file);
  await noTicket();
  const task = client({ credentials: await Credentials.readFile(file) });
  expect((await task.readKey('secvol', 'bkt', 'by-kerberos')).toString()).toBe(
    'written with a Kerberos ticket',
  );
  await task.writeKey('secvol', 'bkt', 'by-token', Buffer.from('written with a token'));
  expect((await alice.readKey('secvol', 'bkt', 'by-token')).toString()).toBe('written with a token');

  // No token for a token (Ozone's rule); the connection authenticated by the token is refused.
  const again = await refusal(task.getDelegationToken('alice'));
  expect(again).toBeInstanceOf(OmStatusError);
  expect(again).toMatchObject({ code: 'ERR_OZONE_INVALID_AUTH_METHOD' });
  const renewedByToken = await refusal(task.renewDelegationToken(token));
  expect(renewedByToken).toMatchObject({ code: 'ERR_OZONE_INVALID_AUTH_METHOD' });

  // Renewed by its renewer, over Kerberos; not by another user.
  await asUser('alice');
  const expiry = await alice.renewDelegationToken(token);
  expect(expiry).toBeGreaterThan(Date.now());
  expect(expiry).toBeLessThanOrEqual(id.maxDate);
  await asUser('bob');
  const bob = client({ kerberos: true });
  expect(await refusal(bob.renewDelegationToken(token))).toMatchObject({ code: 'ERR_OZONE_TOKEN_ERROR' });
  expect(await refusal(bob.cancelDelegationToken(token))).toMatchObject({ code: 'ERR_OZONE_TOKEN_ERROR' });

  // Cancelled by its owner: it authenticates no more.
  await asUser('alice');
  await alice.cancelDelegationToken(token);
  await noTicket();
  const late = client({ credentials: await Credentials.readFile(file) });
  const refused = await refusal(late.writeKey('secvol', 'bkt', 'after-cancel', Buffer.from('x')));
  expect(refused).toBeInstanceOf(RemoteException);
  expect((refused as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
  await asUser('alice');
  expect(await refusal(alice.getKeyInfo('secvol', 'bkt', 'after-cancel'))).toMatchObject({
    code: 'ERR_OZONE_KEY_NOT_FOUND',
  });
});

it('refuses SIMPLE, a forged token and a token for another OM, with nothing written', async () => {
  await asUser('alice');
  const alice = client({ kerberos: true });
  await alice.createVolume('secvol2');
  await alice.createBucket('secvol2', 'bkt');
  const token = (await alice.getDelegationToken('')) as Token;
  await noTicket();

  const simple = client({}, { 'hadoop.rpc.protection': 'authentication' });
  const bySimple = await refusal(simple.writeKey('secvol2', 'bkt', 'simple', Buffer.from('x')));
  expect(bySimple).toBeInstanceOf(RemoteException);
  expect((bySimple as RemoteException).message).toMatch(/SIMPLE authentication is not enabled/);

  const forged = new Token({
    identifier: token.identifier,
    password: new Redacted(Buffer.alloc(32, 7)),
    kind: token.kind,
    service: token.service,
  });
  const byForged = await refusal(
    client({ credentials: new Credentials({ tokens: new Map([['f', forged]]) }) }).writeKey(
      'secvol2',
      'bkt',
      'forged',
      Buffer.from('x'),
    ),
  );
  expect(byForged).toBeInstanceOf(RemoteException);
  expect((byForged as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
  expect(String(byForged)).not.toContain(Buffer.alloc(32, 7).toString('base64'));

  const elsewhere = new Token({ ...token, password: token.password, service: '10.1.2.3:9862' });
  const byOther = await refusal(
    client({ credentials: new Credentials({ tokens: new Map([['o', elsewhere]]) }) }).writeKey(
      'secvol2',
      'bkt',
      'other-om',
      Buffer.from('x'),
    ),
  );
  expect(byOther).toBeInstanceOf(HadoopRpcSaslError);

  await asUser('alice');
  expect((await alice.listKeys('secvol2', 'bkt')).map((k) => k.name)).toEqual([]);
});

/** Runs `fastpath-ozone` in this process (the Kerberos environment is this process's). */
async function cli(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await runOzoneCli(argv, { stdout, stderr, env });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

it('fastpath-ozone dtutil get/print/renew/cancel, and fs with only HADOOP_TOKEN_FILE_LOCATION', async () => {
  await asUser('alice');
  const alice = client({ kerberos: true });
  await alice.createVolume('dtvol');
  await alice.createBucket('dtvol', 'bkt');
  await alice.writeKey('dtvol', 'bkt', 'k', Buffer.from('read through a token file'));
  const conf = [
    '-D',
    `ozone.om.address=${cluster.omRpcAddress}`,
    '-D',
    'hadoop.security.authentication=kerberos',
    '-D',
    `ozone.om.kerberos.principal=om/_HOST@${kdc.realm}`,
    '-D',
    'hadoop.rpc.protection=privacy',
  ];
  const file = join(dir, 'cli.tokens');
  const got = await cli(['dtutil', ...conf, 'get', '-renewer', 'alice', file]);
  expect(got).toMatchObject({ code: 0, stderr: '' });
  const printed = await cli(['dtutil', 'print', file]);
  expect(printed.code).toBe(0);
  expect(printed.stdout).toContain(
    `OzoneToken\t${cluster.omRpcAddress}\towner=${kdc.principal('alice')} renewer=alice`,
  );
  const password = (await Credentials.readFile(file)).tokens.get(cluster.omRpcAddress)?.password.unwrap();
  expect(printed.stdout).not.toContain(password?.toString('base64'));

  await noTicket();
  const uri = `ofs://${cluster.omRpcAddress}/dtvol/bkt/k`;
  const fsConf = conf
    .filter((a) => a !== 'hadoop.security.authentication=kerberos' && a !== '-D')
    .flatMap((a) => ['-D', a]);
  const read = await cli(['fs', ...fsConf, '-cat', uri], { HADOOP_TOKEN_FILE_LOCATION: file });
  expect(read).toMatchObject({ stderr: '', code: 0, stdout: 'read through a token file' });

  await asUser('alice');
  const renewed = await cli(['dtutil', ...conf, 'renew', file]);
  expect(renewed.code).toBe(0);
  expect(renewed.stdout).toMatch(/renewed until \d{4}-/);
  const cancelled = await cli(['dtutil', ...conf, 'cancel', file]);
  expect(cancelled).toMatchObject({ code: 0 });
  expect((await Credentials.readFile(file)).tokens.size).toBe(0);

  // The cancelled token is gone from the file; a copy of it authenticates no more.
  await noTicket();
  const after = await cli(['fs', ...fsConf, '-cat', uri], { HADOOP_TOKEN_FILE_LOCATION: file });
  expect(after.code).toBe(1);
  // Bad command lines are refused before anything is asked of the OM.
  expect((await cli(['dtutil', 'get'])).code).toBe(2);
  expect((await cli(['dtutil', 'renew', '-format', 'x', file])).code).toBe(2);
});

it('block tokens: every command of the client carries its block’s; a datanode refuses none, another block’s, a forged one', async () => {
  await asUser('alice');
  const alice = client({ kerberos: true });
  await alice.createVolume('tokvol');
  await alice.createBucket('tokvol', 'bkt');
  cluster.resetCounters();
  await alice.writeKey('tokvol', 'bkt', 'a', Buffer.from('block a'));
  await alice.writeKey('tokvol', 'bkt', 'b', Buffer.from('block b'));
  expect((await alice.readKey('tokvol', 'bkt', 'a')).toString()).toBe('block a');
  const refusals = () => cluster.datanodes.reduce((n, d) => n + d.counters.blockTokenRefusals, 0);
  expect(refusals()).toBe(0);

  const [a] = (await alice.getKeyInfo('tokvol', 'bkt', 'a')).blocks;
  const [b] = (await alice.getKeyInfo('tokvol', 'bkt', 'b')).blocks;
  if (a === undefined || b === undefined) throw new Error('no blocks');
  expect(a.encodedToken).toMatch(/^[A-Za-z0-9_-]+$/);
  const target = a.datanodes[0] as { uuid: string; address: string };
  const manager = new DatanodeClientManager({
    maxReceiveBytes: 1 << 20,
    maxInFlight: 4,
    tls: undefined,
    reconnectBackoffMs: 1000,
  });
  try {
    const channel = manager.channel(target.address);
    const ref = { containerId: a.containerId, localId: a.localId, blockCommitSequenceId: 0n };
    const getBlock = (encodedToken: string | undefined) =>
      channel.send(getBlockRequest({ ...ref, encodedToken }, target.uuid), 5000).then(
        () => 'served',
        (e: unknown) => String(e),
      );
    expect(await getBlock(a.encodedToken)).toBe('served');
    for (const bad of [undefined, b.encodedToken, forge(a.encodedToken as string)]) {
      expect(await getBlock(bad)).toMatch(/BLOCK_TOKEN_VERIFICATION_FAILED/);
    }
    expect(refusals()).toBe(3);
  } finally {
    manager.close();
  }
});

/** A block token with its password replaced. */
function forge(encoded: string): string {
  const t = Token.fromUrlString(encoded);
  return new Token({ ...t, password: new Redacted(Buffer.alloc(32, 1)) }).toUrlString();
}
