// Byte-level cross-checks of delegation token identifiers and Token URL strings: what Hadoop's
// Token and AbstractDelegationTokenIdentifier write, fastpath (@fastpath/hadoop-common) decodes
// and writes again to the same bytes; and the other way round; and Credentials token files (both
// formats) read by the other side and written to the same bytes. Over a generated set: the edge
// values of every field (VLong/VInt length boundaries, the Java int and long ranges), Unicode
// names, long strings (up to one byte under Hadoop's Text limit), empty and long passwords.
import { Redacted } from '@fastpath/core';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Credentials, DelegationTokenIdentifier, Token, TEXT_DEFAULT_MAX_LEN } from '@fastpath/hadoop-common';
import { prepareHadoop, runHadoopClient, type HadoopInstallation } from '@fastpath/hadoop-fixture';
import { ok } from './support.js';

jest.setTimeout(600_000);

interface Case {
  readonly kind: string;
  readonly service: string;
  readonly owner: string;
  readonly renewer: string;
  readonly realUser: string;
  readonly issueDate: bigint;
  readonly maxDate: bigint;
  readonly sequenceNumber: number;
  readonly masterKeyId: number;
  readonly password: Buffer;
}

// Where VLong/VInt change length (one byte from -112 to 127, then one more per byte of magnitude)
// and the ends of the Java ranges.
const LONGS: readonly bigint[] = [
  0n,
  1n,
  -1n,
  127n,
  128n,
  -112n,
  -113n,
  255n,
  256n,
  -256n,
  -257n,
  2n ** 31n - 1n,
  2n ** 31n,
  -(2n ** 31n),
  -(2n ** 31n) - 1n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n),
  2n ** 56n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  1_796_000_000_000n,
];
const INTS: readonly number[] = [0, 1, -1, 127, 128, -112, -113, 32_767, 65_536, 2 ** 31 - 1, -(2 ** 31)];
const NAMES: readonly string[] = [
  '',
  'a',
  'client',
  'é',
  'ключ',
  '用户',
  '🔑 key',
  'e\u0301', // a combining accent
  'tab\tnew\nline',
  'x'.repeat(127),
  'x'.repeat(128),
  'ü'.repeat(5_000),
  // One byte under Hadoop's Text limit: the longest field Hadoop writes and reads back.
  'y'.repeat(TEXT_DEFAULT_MAX_LEN - 1),
];

const BASE: Case = {
  kind: 'kms-dt',
  service: 'kms://http@127.0.0.1:9600/kms',
  owner: 'client',
  renewer: 'renewer',
  realUser: '',
  issueDate: 1_796_000_000_000n,
  maxDate: 1_796_604_800_000n,
  sequenceNumber: 42,
  masterKeyId: 7,
  password: Buffer.alloc(20, 0xab),
};

/** A deterministic generator (xorshift32), so that a failing case is found again. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function cases(): Case[] {
  const all: Case[] = [BASE];
  for (const value of LONGS) all.push({ ...BASE, issueDate: value }, { ...BASE, maxDate: value });
  for (const value of INTS) all.push({ ...BASE, sequenceNumber: value }, { ...BASE, masterKeyId: value });
  for (const name of NAMES) {
    all.push({ ...BASE, owner: name }, { ...BASE, realUser: name }, { ...BASE, service: name.slice(0, 200) });
  }
  // Renewers Hadoop keeps as given (it maps Kerberos principals with '@' or '/' to short names).
  for (const name of ['', 'yarn', 'ключ', '🔑', 'x'.repeat(300)]) all.push({ ...BASE, renewer: name });
  all.push(
    { ...BASE, password: Buffer.alloc(0) },
    { ...BASE, password: Buffer.alloc(1, 0) },
    { ...BASE, password: Buffer.alloc(300, 0xff) },
    { ...BASE, kind: 'HDFS_DELEGATION_TOKEN' },
    { ...BASE, kind: '' },
  );
  const next = random(20_451);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  for (let i = 0; i < 60; i++) {
    all.push({
      kind: pick(['kms-dt', 'HDFS_DELEGATION_TOKEN', 'RM_DELEGATION_TOKEN']),
      service: pick(['', '127.0.0.1:9600', 'ha-hdfs:ns1', 'сервис']),
      owner: pick(NAMES.slice(0, 11)),
      renewer: pick(['', 'yarn', 'ключ', '🔑']),
      realUser: pick(NAMES.slice(0, 11)),
      issueDate: pick(LONGS),
      maxDate: pick(LONGS),
      sequenceNumber: pick(INTS),
      masterKeyId: pick(INTS),
      password: Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256))),
    });
  }
  return all;
}

function fastpathToken(c: Case): Token {
  const identifier = new DelegationTokenIdentifier(c.kind, {
    owner: c.owner,
    renewer: c.renewer,
    realUser: c.realUser,
    issueDate: c.issueDate,
    maxDate: c.maxDate,
    sequenceNumber: c.sequenceNumber,
    masterKeyId: c.masterKeyId,
  });
  return new Token({
    identifier: identifier.bytes,
    password: new Redacted(c.password),
    kind: c.kind,
    service: c.service,
  });
}

/** The fields as the driver prints them (longs as decimal strings). */
function printed(c: Omit<Case, 'kind' | 'service' | 'password'>): Record<string, string | number> {
  return {
    owner: c.owner,
    renewer: c.renewer,
    realUser: c.realUser,
    issueDate: String(c.issueDate),
    maxDate: String(c.maxDate),
    sequenceNumber: c.sequenceNumber,
    masterKeyId: c.masterKeyId,
  };
}

let installation: HadoopInstallation;
const all = cases();

beforeAll(async () => {
  installation = await prepareHadoop();
});

describe('delegation tokens, byte for byte between Hadoop and fastpath', () => {
  it(`Hadoop writes ${all.length} tokens; fastpath decodes each and writes the same bytes and URL string`, async () => {
    const answers = await runHadoopClient(
      installation,
      'kms://http@127.0.0.1:1/kms', // not contacted: writeToken runs without a server
      all.map((c) => ({
        op: 'writeToken' as const,
        kind: c.kind,
        service: c.service,
        owner: c.owner,
        renewer: c.renewer,
        realUser: c.realUser,
        issueDate: String(c.issueDate),
        maxDate: String(c.maxDate),
        sequenceNumber: c.sequenceNumber,
        masterKeyId: c.masterKeyId,
        password: c.password.toString('base64url'),
      })),
    );
    all.forEach((c, i) => {
      const answer = ok(answers[i]);
      const urlString = answer['urlString'] as string;
      const hadoopIdentifier = Buffer.from(answer['identifier'] as string, 'base64url');
      // What Hadoop wrote is what was asked for.
      expect(answer['fields']).toEqual(printed(c));

      const token = Token.fromUrlString(urlString);
      expect(token.identifier.equals(hadoopIdentifier)).toBe(true);
      expect(token.kind).toBe(c.kind);
      expect(token.service).toBe(c.service);
      expect(token.password.unwrap().equals(c.password)).toBe(true);
      const identifier = DelegationTokenIdentifier.decode(c.kind, token.identifier);
      expect({
        owner: identifier.owner,
        renewer: identifier.renewer,
        realUser: identifier.realUser,
        issueDate: String(identifier.issueDateLong),
        maxDate: String(identifier.maxDateLong),
        sequenceNumber: identifier.sequenceNumber,
        masterKeyId: identifier.masterKeyId,
      }).toEqual(printed(c));
      // Written again by fastpath: the same bytes and the same URL string.
      expect(identifier.bytes.equals(hadoopIdentifier)).toBe(true);
      expect(fastpathToken(c).toUrlString()).toBe(urlString);
      expect(token.encode().toString('base64url')).toBe(urlString);
    });
  });

  it(`fastpath writes ${all.length} tokens; Hadoop decodes each and writes the same bytes and URL string`, async () => {
    const tokens = all.map(fastpathToken);
    const answers = await runHadoopClient(
      installation,
      'kms://http@127.0.0.1:1/kms',
      tokens.map((t) => ({ op: 'readToken' as const, urlString: t.toUrlString() })),
    );
    all.forEach((c, i) => {
      const token = tokens[i] as Token;
      const answer = ok(answers[i]);
      expect(answer['fields']).toEqual(printed(c));
      expect(answer['kind']).toBe(c.kind);
      expect(answer['service']).toBe(c.service);
      expect(Buffer.from(answer['password'] as string, 'base64url').equals(c.password)).toBe(true);
      expect(Buffer.from(answer['identifier'] as string, 'base64url').equals(token.identifier)).toBe(true);
      // Hadoop's identifier written again by Hadoop, and its Token's URL string.
      expect(Buffer.from(answer['identifierRewritten'] as string, 'base64url').equals(token.identifier)).toBe(
        true,
      );
      expect(answer['urlString']).toBe(token.toUrlString());
    });
  });

  it.each<['writable' | 'protobuf']>([['writable'], ['protobuf']])(
    'Credentials token files (%s): Hadoop reads what fastpath writes, and fastpath writes the bytes Hadoop writes',
    async (format) => {
      const dir = await mkdtemp(join(tmpdir(), 'credentials-'));
      try {
        const tokens = all
          .slice(0, 40)
          .map((c, i) => ({ alias: `${c.service}#${i}`, token: fastpathToken(c) }));
        const ours = new Credentials({ tokens: new Map(tokens.map((t) => [t.alias, t.token])) });
        const oursPath = join(dir, 'fastpath.tokens');
        const theirsPath = join(dir, 'hadoop.tokens');
        await ours.writeFile(oursPath, format);
        const [read, written] = await runHadoopClient(installation, 'kms://http@127.0.0.1:1/kms', [
          { op: 'readCredentials', path: oursPath },
          {
            op: 'writeCredentials',
            path: theirsPath,
            format,
            tokens: tokens.map((t) => ({ alias: t.alias, urlString: t.token.toUrlString() })),
          },
        ]);
        const byAlias = new Map(
          (ok(read)['tokens'] as { alias: string; urlString: string }[]).map((t) => [t.alias, t.urlString]),
        );
        expect(byAlias).toEqual(new Map(tokens.map((t) => [t.alias, t.token.toUrlString()])));
        ok(written);
        const theirs = await readFile(theirsPath);
        const decoded = Credentials.decode(theirs);
        expect(new Map([...decoded.tokens].map(([a, t]) => [a, t.toUrlString()]))).toEqual(byAlias);
        // Hadoop keeps its tokens in a HashMap: the order of its file is its own. Written again in
        // that order, fastpath's bytes are Hadoop's.
        expect(decoded.encode(format).equals(theirs)).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('both refuse a field of Hadoop Text limit length (1 MiB): Hadoop will not write it, fastpath neither', async () => {
    const tooLong = 'z'.repeat(TEXT_DEFAULT_MAX_LEN + 1);
    const [answer] = await runHadoopClient(installation, 'kms://http@127.0.0.1:1/kms', [
      {
        op: 'writeToken',
        owner: tooLong,
        renewer: BASE.renewer,
        realUser: '',
        issueDate: String(BASE.issueDate),
        maxDate: String(BASE.maxDate),
        sequenceNumber: BASE.sequenceNumber,
        masterKeyId: BASE.masterKeyId,
        password: '',
      },
    ]);
    expect(answer).toMatchObject({ ok: false, message: 'owner is too long to be serialized!' });
    expect(() => fastpathToken({ ...BASE, owner: tooLong })).toThrow('owner is too long to be serialized!');
  });
});
