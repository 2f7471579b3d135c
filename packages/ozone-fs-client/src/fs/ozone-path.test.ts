import { describe, expect, it } from '@jest/globals';
import { authorityText, normalizePath, parseOzoneUri, pathOfKey, splitOzonePath } from './ozone-path.js';

describe('parseOzoneUri', () => {
  it('ofs: the authority is the OM', () => {
    expect(parseOzoneUri('ofs://om1:9862/vol/buck/a/b')).toEqual({
      authority: { scheme: 'ofs', omHost: 'om1:9862' },
      path: '/vol/buck/a/b',
    });
    expect(parseOzoneUri('ofs://om1').path).toBe('/');
    expect(parseOzoneUri('ofs:///vol').authority.omHost).toBe('');
  });
  it('o3fs: bucket.volume[.om-host[:port]], the OM host keeping its own dots', () => {
    expect(parseOzoneUri('o3fs://buck.vol.om.example.com:8981/k').authority).toEqual({
      scheme: 'o3fs',
      bucket: 'buck',
      volume: 'vol',
      omHost: 'om.example.com:8981',
    });
    expect(parseOzoneUri('o3fs://buck.vol/k').authority).toMatchObject({
      bucket: 'buck',
      volume: 'vol',
      omHost: '',
    });
  });
  it('refuses other schemes and o3fs authorities without a volume', () => {
    for (const bad of ['hdfs://nn/x', 'ofs:/x', 'o3fs://buck/x', 'o3fs://.vol.om/x', 'not a uri'])
      expect(() => parseOzoneUri(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_OZONE_FS_INVALID_PATH' }),
      );
  });
  it('authorityText is the canonical authority', () => {
    expect(authorityText(parseOzoneUri('o3fs://b.v.om:1/').authority)).toBe('b.v.om:1');
    expect(authorityText(parseOzoneUri('ofs://om:1/').authority)).toBe('om:1');
  });
});

describe('normalizePath', () => {
  it('as Hadoop Path: repeated and trailing slashes, . and .. resolved; relative against the working directory', () => {
    expect(normalizePath('//vol///b/./c/../d/')).toBe('/vol/b/d');
    expect(normalizePath('x/y', '/vol/b')).toBe('/vol/b/x/y');
    expect(normalizePath('/..')).toBe('/');
  });
  it("refuses ':' and control characters and the empty path", () => {
    for (const bad of ['/v/b/a:b', '/v/b/\u0001', ''])
      expect(() => normalizePath(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_OZONE_FS_INVALID_PATH' }),
      );
  });
});

describe('splitOzonePath / pathOfKey', () => {
  const ofs = parseOzoneUri('ofs://om/').authority;
  const o3fs = parseOzoneUri('o3fs://buck.vol.om/').authority;
  it('ofs: volume, bucket, then the key', () => {
    expect(splitOzonePath(ofs, '/')).toEqual({ path: '/', key: '' });
    expect(splitOzonePath(ofs, '/vol')).toEqual({ path: '/vol', volume: 'vol', key: '' });
    expect(splitOzonePath(ofs, '/vol/buck/a/b')).toEqual({
      path: '/vol/buck/a/b',
      volume: 'vol',
      bucket: 'buck',
      key: 'a/b',
    });
    expect(pathOfKey(ofs, 'vol', 'buck', 'a/b')).toBe('/vol/buck/a/b');
    expect(pathOfKey(ofs, 'vol', 'buck', '')).toBe('/vol/buck');
  });
  it('o3fs: the whole path is the key of the one bucket', () => {
    expect(splitOzonePath(o3fs, '/a/b')).toEqual({ path: '/a/b', volume: 'vol', bucket: 'buck', key: 'a/b' });
    expect(pathOfKey(o3fs, 'vol', 'buck', 'a/b')).toBe('/a/b');
    expect(pathOfKey(o3fs, 'vol', 'buck', '')).toBe('/');
  });
});
