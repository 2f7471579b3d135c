import { InvalidOptionError } from '@fastpath/core';
import { parseKmsUrl } from './parse-kms-url.js';

describe('parseKmsUrl', () => {
  it.each([
    ['http://h:9600/kms', 'http://h:9600/kms'],
    ['http://h:9600/kms/', 'http://h:9600/kms'],
    ['http://h:9600/kms/v1', 'http://h:9600/kms'],
    ['http://h:9600/kms/v1/', 'http://h:9600/kms'],
    ['http://h:9600', 'http://h:9600/kms'],
    ['https://h:9600/prefix/kms', 'https://h:9600/prefix/kms'],
    ['kms://http@h:9600/kms', 'http://h:9600/kms'],
    ['kms://HTTPS@h:9600/kms', 'https://h:9600/kms'],
    ['  http://127.0.0.1:9600/kms ', 'http://127.0.0.1:9600/kms'],
  ])('%s → %s', (input, expected) => {
    expect(parseKmsUrl(input).href.replace(/\/$/, '')).toBe(expected);
  });

  it.each([
    ['', /KMS base URL/],
    [42, /KMS base URL/],
    ['not a url', /not a URL/],
    ['ftp://h/kms', /expected http/],
    ['http://u:p@h/kms', /credentials/],
    ['http://h/kms?user.name=x', /query/],
    ['kms://http@h1;h2:9600/kms', /several hosts/],
  ])('refuses %p', (input, message) => {
    expect(() => parseKmsUrl(input)).toThrow(InvalidOptionError);
    expect(() => parseKmsUrl(input)).toThrow(message);
  });
});
