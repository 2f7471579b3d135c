import { describe, expect, it } from '@jest/globals';
import { keyProviderUrls } from './key-provider-uri.js';

describe('keyProviderUrls', () => {
  it("reads Hadoop's kms:// provider URIs, one host or several sharing the port", () => {
    expect(keyProviderUrls('kms://http@kms1:9600/kms')).toEqual(['http://kms1:9600/kms']);
    expect(keyProviderUrls(' kms://https@h1;h2;h3:9600/kms ')).toEqual([
      'https://h1:9600/kms',
      'https://h2:9600/kms',
      'https://h3:9600/kms',
    ]);
    expect(keyProviderUrls('kms://HTTP@h1;h2')).toEqual(['http://h1/kms', 'http://h2/kms']);
    expect(keyProviderUrls('http://127.0.0.1:9600/kms')).toEqual(['http://127.0.0.1:9600/kms']);
  });

  it('refuses other schemes and empty hosts, naming the setting', () => {
    for (const bad of ['jceks://file@/tmp/k.jks', 'kms://ftp@h:1/kms', 'kms://http@h1;;h2:9600/kms', ''])
      expect(() => keyProviderUrls(bad)).toThrow(/hadoop\.security\.key\.provider\.path/);
  });
});
