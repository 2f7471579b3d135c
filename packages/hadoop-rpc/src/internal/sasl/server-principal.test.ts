import { canonicalHostName, checkServerPrincipal, globToRegExp, splitPrincipal } from './server-principal.js';

describe('splitPrincipal', () => {
  it('splits service/host@REALM as Hadoop does, each part optional but the first', () => {
    expect(splitPrincipal('om/host1.example.com@EXAMPLE.COM')).toEqual({
      service: 'om',
      host: 'host1.example.com',
      realm: 'EXAMPLE.COM',
    });
    expect(splitPrincipal('om/_HOST')).toEqual({ service: 'om', host: '_HOST' });
    expect(splitPrincipal('alice@EXAMPLE.COM')).toEqual({ service: 'alice', realm: 'EXAMPLE.COM' });
  });
});

describe('globToRegExp (Hadoop GlobFilter syntax)', () => {
  it.each([
    ['om/*@EXAMPLE.COM', 'om/host1@EXAMPLE.COM', true],
    ['om/*@EXAMPLE.COM', 'scm/host1@EXAMPLE.COM', false],
    ['om/host?@EXAMPLE.COM', 'om/host7@EXAMPLE.COM', true],
    ['om/host[12]@EXAMPLE.COM', 'om/host3@EXAMPLE.COM', false],
    ['om/host[!12]@EXAMPLE.COM', 'om/host3@EXAMPLE.COM', true],
    ['{om,scm}/*@EXAMPLE.COM', 'scm/h@EXAMPLE.COM', true],
    // A dot is a dot, not any character.
    ['om/h.example@EXAMPLE.COM', 'om/hxexample@EXAMPLE.COM', false],
  ])('%s against %s: %s', (glob, name, matches) => {
    expect(globToRegExp(glob).test(name)).toBe(matches);
  });
});

describe('checkServerPrincipal', () => {
  const advertised = { protocol: 'om', serverId: 'localhost' };

  it('replaces _HOST by the canonical name of the address connected to', async () => {
    expect(await canonicalHostName('127.0.0.1')).toBe('localhost');
    await expect(
      checkServerPrincipal(advertised, { principal: 'om/_HOST@EXAMPLE.COM' }, '127.0.0.1', 'EXAMPLE.COM'),
    ).resolves.toBeUndefined();
  });

  it('adds the default realm where the configured principal has none', async () => {
    await expect(
      checkServerPrincipal(advertised, { principal: 'om/localhost' }, '127.0.0.1', 'EXAMPLE.COM'),
    ).resolves.toBeUndefined();
  });

  it('refuses another service, another host, another realm, with Hadoop’s words', async () => {
    for (const principal of ['scm/_HOST@EXAMPLE.COM', 'om/otherhost@EXAMPLE.COM', 'om/_HOST@OTHER.ORG']) {
      const problem = await checkServerPrincipal(advertised, { principal }, '127.0.0.1', 'EXAMPLE.COM');
      expect(problem).toMatch(
        /^Server has invalid Kerberos principal: om\/localhost@EXAMPLE\.COM, expecting: /,
      );
    }
  });

  it('refuses a configured principal with no host part', async () => {
    await expect(
      checkServerPrincipal(advertised, { principal: 'om@EXAMPLE.COM' }, '127.0.0.1', 'EXAMPLE.COM'),
    ).resolves.toMatch(/has no host part/);
  });

  it('takes a pattern instead of a principal', async () => {
    await expect(
      checkServerPrincipal(advertised, { pattern: 'om/*@EXAMPLE.COM' }, '127.0.0.1', 'EXAMPLE.COM'),
    ).resolves.toBeUndefined();
    await expect(
      checkServerPrincipal(advertised, { pattern: 'scm/*@EXAMPLE.COM' }, '127.0.0.1', 'EXAMPLE.COM'),
    ).resolves.toMatch(/doesn't match the pattern/);
  });
});
