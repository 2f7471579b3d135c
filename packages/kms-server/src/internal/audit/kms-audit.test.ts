import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@fastpath/core';
import { KmsAudit, formatLogTime, redactUrl } from './kms-audit.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kms-audit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function linesAfter(file: string, audit: KmsAudit): Promise<string[]> {
  await audit.close();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      expect(l).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} /);
      return l.slice(24);
    });
}

describe('KmsAudit', () => {
  it("writes Hadoop's simple formats, omitting empty parts", async () => {
    const file = join(dir, 'audit.log');
    const audit = new KmsAudit({ file, aggregationWindowMs: 10_000, clock: new ManualClock(0) });
    audit.ok('alice', 'CREATE_KEY', 'k1', 'UserProvidedMaterial:false Description:null');
    audit.ok('alice', 'GET_KEYS', undefined, '');
    audit.ok('alice', 'REENCRYPT_EEK_BATCH', 'k1', 'reencrypted 6 keys');
    audit.unauthorized('bob', 'CREATE_KEY', 'k2');
    audit.unauthorized('bob', 'GET_KEYS', undefined);
    audit.error('carol', 'GET', 'boom');
    audit.unauthenticated(
      '10.0.0.1',
      'GET',
      'http://h:9600/kms/v1/keys/names?delegation=SECRET&x=1',
      'Authentication required',
    );
    expect(await linesAfter(file, audit)).toEqual([
      'OK[op=CREATE_KEY, key=k1, user=alice] UserProvidedMaterial:false Description:null',
      'OK[op=GET_KEYS, user=alice] ',
      'OK[op=REENCRYPT_EEK_BATCH, key=k1, user=alice] reencrypted 6 keys',
      'UNAUTHORIZED[op=CREATE_KEY, key=k2, user=bob] ',
      'UNAUTHORIZED[op=GET_KEYS, user=bob] ',
      "ERROR[user=carol] Method:'GET' Exception:'boom'",
      "UNAUTHENTICATED RemoteHost:10.0.0.1 Method:GET URL:http://h:9600/kms/v1/keys/names?delegation=<redacted>&x=1 ErrorMsg:'Authentication required'",
    ]);
  });

  it('aggregates repeated EEK and version reads per user, key and operation, per window', async () => {
    const file = join(dir, 'audit.log');
    const clock = new ManualClock(1_000_000);
    const audit = new KmsAudit({ file, aggregationWindowMs: 10_000, clock });
    audit.ok('alice', 'DECRYPT_EEK', 'k1', '');
    clock.advance(1000);
    audit.ok('alice', 'DECRYPT_EEK', 'k1', '');
    audit.ok('alice', 'DECRYPT_EEK', 'k1', '');
    audit.ok('bob', 'DECRYPT_EEK', 'k1', '');
    audit.ok('alice', 'GENERATE_EEK', 'k1', '');
    clock.advance(9000);
    audit.sweep();
    clock.advance(10_000);
    audit.sweep(); // alice's DECRYPT_EEK had a window without accesses: dropped
    audit.ok('alice', 'DECRYPT_EEK', 'k1', '');
    expect(await linesAfter(file, audit)).toEqual([
      'OK[op=DECRYPT_EEK, key=k1, user=alice, accessCount=1, interval=0ms] ',
      'OK[op=DECRYPT_EEK, key=k1, user=bob, accessCount=1, interval=0ms] ',
      'OK[op=GENERATE_EEK, key=k1, user=alice, accessCount=1, interval=0ms] ',
      'OK[op=DECRYPT_EEK, key=k1, user=alice, accessCount=3, interval=10000ms] ',
      // bob's and the GENERATE_EEK window started 1 s later: they end at the second sweep.
      'OK[op=DECRYPT_EEK, key=k1, user=bob, accessCount=1, interval=19000ms] ',
      'OK[op=GENERATE_EEK, key=k1, user=alice, accessCount=1, interval=19000ms] ',
      'OK[op=DECRYPT_EEK, key=k1, user=alice, accessCount=1, interval=0ms] ',
      // close writes what is pending
      'OK[op=DECRYPT_EEK, key=k1, user=alice, accessCount=1, interval=0ms] ',
    ]);
  });

  it('flushes and restarts an aggregate on an unauthorized access', async () => {
    const file = join(dir, 'audit.log');
    const audit = new KmsAudit({ file, aggregationWindowMs: 10_000, clock: new ManualClock(0) });
    audit.ok('alice', 'GET_CURRENT_KEY', 'k1', '');
    audit.ok('alice', 'GET_CURRENT_KEY', 'k1', '');
    audit.unauthorized('alice', 'GET_CURRENT_KEY', 'k1');
    audit.ok('alice', 'GET_CURRENT_KEY', 'k1', '');
    const lines = await linesAfter(file, audit);
    expect(lines.slice(0, 4)).toEqual([
      'OK[op=GET_CURRENT_KEY, key=k1, user=alice, accessCount=1, interval=0ms] ',
      'OK[op=GET_CURRENT_KEY, key=k1, user=alice, accessCount=2, interval=0ms] ',
      'UNAUTHORIZED[op=GET_CURRENT_KEY, key=k1, user=alice] ',
      'OK[op=GET_CURRENT_KEY, key=k1, user=alice, accessCount=1, interval=0ms] ',
    ]);
  });

  it('escapes control characters so a name cannot forge a line', async () => {
    const file = join(dir, 'audit.log');
    const audit = new KmsAudit({ file, aggregationWindowMs: 10_000 });
    audit.ok('eve\r\nOK[op=DELETE_KEY', 'CREATE_KEY', 'k\n1\u0000', '');
    const lines = await linesAfter(file, audit);
    expect(lines).toEqual(['OK[op=CREATE_KEY, key=k\\n1\\u0000, user=eve\\r\\nOK[op=DELETE_KEY] ']);
  });

  it('stamps every line with its own time across second boundaries', async () => {
    const file = join(dir, 'audit.log');
    const clock = new ManualClock(0);
    const audit = new KmsAudit({ file, aggregationWindowMs: 10_000, clock });
    const times = [5, 999, 1000, 1001.7, 1099, 61_010, 61_010, 3_600_000 - 1, 3_600_000];
    for (const t of times) {
      clock.set(t);
      audit.ok('alice', 'GET_KEYS', undefined, '');
    }
    await audit.close();
    const stamps = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.slice(0, 23));
    expect(stamps).toEqual(times.map((t) => formatLogTime(new Date(t))));
  });

  it('formats times as log4j ISO8601 and redacts token parameters in URLs', () => {
    expect(formatLogTime(new Date(2024, 0, 2, 3, 4, 5, 6))).toBe('2024-01-02 03:04:05,006');
    expect(redactUrl('http://h/kms/v1/?op=RENEWDELEGATIONTOKEN&token=abc&user.name=u')).toBe(
      'http://h/kms/v1/?op=RENEWDELEGATIONTOKEN&token=<redacted>&user.name=u',
    );
    expect(redactUrl('http://h/x?deleg%61tion=abc')).toBe('http://h/x?deleg%61tion=<redacted>');
    expect(redactUrl('http://h/x')).toBe('http://h/x');
  });
});
