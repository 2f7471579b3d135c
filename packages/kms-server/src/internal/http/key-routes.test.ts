import { routableUrl } from './key-routes.js';

describe('routableUrl', () => {
  it.each([
    // A name without a slash: the URL as it came.
    ['/kms/v1/key/k1/_metadata', '/kms/v1/key/k1/_metadata'],
    ['/kms/v1/key/k1', '/kms/v1/key/k1'],
    ['/kms/v1/key/k1/_metadata?user.name=a/b', '/kms/v1/key/k1/_metadata?user.name=a/b'],
    ['/kms/v1/key/k1?doas=x/y', '/kms/v1/key/k1?doas=x/y'],
    ['/kms/v1/key/', '/kms/v1/key/'],
    ['/kms/v1/key//_metadata', '/kms/v1/key//_metadata'],
    ['/kms/v1/keys/names', '/kms/v1/keys/names'],
    ['/kms/v1/keyversion/k1@0/_eek?eek_op=decrypt', '/kms/v1/keyversion/k1@0/_eek?eek_op=decrypt'],
    // A name with slashes: one path segment, the slashes encoded; the suffix and query kept.
    ['/kms/v1/key/a/b/_metadata', '/kms/v1/key/a%2Fb/_metadata'],
    ['/kms/v1/key/a/b', '/kms/v1/key/a%2Fb'],
    ['/kms/v1/key/a/b?x=/y', '/kms/v1/key/a%2Fb?x=/y'],
    ['/kms/v1/key/a//_metadata', '/kms/v1/key/a%2F/_metadata'],
    ['/kms/v1/key/a/b/c/_eek?eek_op=generate', '/kms/v1/key/a%2Fb%2Fc/_eek?eek_op=generate'],
    // An unknown suffix is part of the name, as Hadoop's `{name:.*}` takes it.
    ['/kms/v1/key/k1/_other', '/kms/v1/key/k1%2F_other'],
    ['/kms/v1/keyversion/k1@0/_metadata', '/kms/v1/keyversion/k1@0%2F_metadata'],
    ['/kms/v1/keyversion/a/b@0/_eek?eek_op=decrypt', '/kms/v1/keyversion/a%2Fb@0/_eek?eek_op=decrypt'],
  ])('%s routes as %s', (url, routed) => {
    expect(routableUrl(url)).toBe(routed);
  });
});
