// OzoneFileSystem against the embedded cluster: the ofs and o3fs path rules, the operations and
// their Hadoop-style errors, and the instance cache. setVerifyChecksum per instance and HBase's
// two-instance pattern are in the shared file-system read suite (embedded-contract here, and
// against Ozone's MiniOzoneCluster in tools/ozone).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  closeAllFileSystems,
  getFileSystem,
  newFileSystemInstance,
  type OzoneFileSystem,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';

let cluster: MiniOzoneCluster;
let fs: OzoneFileSystem;
let uri: string;

async function put(target: OzoneFileSystem, path: string, data: Buffer, options = {}): Promise<void> {
  const out = await target.create(path, options);
  await out.write(data);
  await out.close();
}

async function cat(target: OzoneFileSystem, path: string): Promise<Buffer> {
  const stream = await target.open(path);
  const buf = Buffer.alloc(stream.length);
  await stream.readFully(0, buf);
  stream.close();
  return buf;
}

const names = (list: Array<{ path: string }>): string[] => list.map((s) => s.path.slice(uri.length));

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  uri = `ofs://${cluster.omAddress}`;
  fs = newFileSystemInstance(uri, { userName: 'alice' });
});
afterAll(async () => {
  fs?.close();
  closeAllFileSystems();
  await cluster?.close();
});

describe('ofs operations', () => {
  it('mkdirs makes the volume, bucket and directories; getFileStatus describes each level', async () => {
    expect(await fs.mkdirs('/vol1/bucket1/a/b/c')).toBe(true);
    expect(await fs.mkdirs('/vol1/bucket1/a/b/c')).toBe(true); // already there
    for (const p of ['/', '/vol1', '/vol1/bucket1', '/vol1/bucket1/a', '/vol1/bucket1/a/b/c']) {
      const s = await fs.getFileStatus(p);
      expect(s).toMatchObject({ isDirectory: true, isFile: false, length: 0, path: uri + p });
    }
    expect((await fs.getFileStatus('/vol1')).owner).toBe('alice');
  });

  it('create, then FileStatus has length, block size, modification time and owner', async () => {
    const before = Date.now();
    await put(fs, '/vol1/bucket1/a/file1', Buffer.from('hello, ofs'));
    const s = await fs.getFileStatus(`${uri}/vol1/bucket1/a/file1`);
    expect(s).toMatchObject({
      isFile: true,
      isDirectory: false,
      length: 10,
      blockSize: 256 * 1024 * 1024,
      owner: 'alice',
    });
    expect(s.modificationTime).toBeGreaterThanOrEqual(before - 1000);
    expect((await cat(fs, '/vol1/bucket1/a/file1')).toString()).toBe('hello, ofs');
    expect(s.replication).toBe(3);
    await put(fs, '/vol1/bucket1/a/single', Buffer.from('1'), { replication: 'ONE' });
    expect((await fs.getFileStatus('/vol1/bucket1/a/single')).replication).toBe(1);
  });

  it('create: overwrite flag, recursive parents, and the errors of Hadoop', async () => {
    await put(fs, '/vol1/bucket1/x/y/z', Buffer.from('1'));
    expect(await fs.exists('/vol1/bucket1/x/y')).toBe(true);
    await expect(fs.create('/vol1/bucket1/x/y/z', { overwrite: false })).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_ALREADY_EXISTS',
    });
    await put(fs, '/vol1/bucket1/x/y/z', Buffer.from('22'), { overwrite: true });
    expect((await cat(fs, '/vol1/bucket1/x/y/z')).toString()).toBe('22');
    await expect(fs.create('/vol1/bucket1/x/y')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_ALREADY_EXISTS',
    });
    await expect(fs.create('/vol1/bucket1/x/y/z/under-a-file')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_PARENT_NOT_DIRECTORY',
    });
    await expect(fs.create('/vol1/bucket1/no/such/parent', { recursive: false })).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_NOT_FOUND',
    });
    expect(await fs.exists('/vol1/bucket1/no')).toBe(false);
    await expect(fs.mkdirs('/vol1/bucket1/x/y/z')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_ALREADY_EXISTS',
    });
    await expect(fs.mkdirs('/vol1/bucket1/x/y/z/d')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_PARENT_NOT_DIRECTORY',
    });
    await expect(fs.create('/vol1/bucket1')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_ALREADY_EXISTS',
    });
  });

  it('getFileStatus and open of a missing path: FileNotFound', async () => {
    for (const p of ['/nosuchvol', '/vol1/nosuchbucket', '/vol1/bucket1/none'])
      await expect(fs.getFileStatus(p)).rejects.toMatchObject({
        code: 'ERR_OZONE_FS_FILE_NOT_FOUND',
        path: p,
      });
    await expect(fs.open('/vol1/bucket1/none')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_NOT_FOUND',
    });
    await expect(fs.open('/vol1/bucket1/a')).rejects.toMatchObject({ code: 'ERR_OZONE_FS_FILE_NOT_FOUND' });
    await expect(fs.listStatus('/vol1/bucket1/none')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_FILE_NOT_FOUND',
    });
    expect(await fs.exists('/vol1/bucket1/none')).toBe(false);
  });

  it('listStatus lists one level, sorted, across many pages', async () => {
    const paged = newFileSystemInstance(uri, {
      userName: 'alice',
      properties: { 'ozone.fs.listing.page.size': '3' },
    });
    try {
      await paged.mkdirs('/vol1/list/d5');
      for (let i = 0; i < 10; i++) await put(paged, `/vol1/list/f${i}`, Buffer.from([i]));
      await put(paged, '/vol1/list/d5/inner', Buffer.from('x'));
      const pages: number[] = [];
      for await (const page of paged.listStatusPages('/vol1/list')) pages.push(page.length);
      expect(pages.length).toBeGreaterThan(3);
      const all = await paged.listStatus('/vol1/list');
      expect(names(all)).toEqual([
        '/vol1/list/d5',
        ...Array.from({ length: 10 }, (_, i) => `/vol1/list/f${i}`),
      ]);
      expect(all[0]?.isDirectory).toBe(true);
      expect(all[1]).toMatchObject({ isFile: true, length: 1 });
      expect(names(await paged.listStatus('/vol1/list/f3'))).toEqual(['/vol1/list/f3']);
      expect(names(await paged.listStatus('/vol1'))).toEqual(['/vol1/bucket1', '/vol1/list']);
      expect(names(await paged.listStatus('/'))).toContain('/vol1');
    } finally {
      paged.close();
    }
  });

  it('delete: a file, a non-empty directory (refused unless recursive), a bucket and a volume', async () => {
    await put(fs, '/vol2/bkt/d/e/f', Buffer.from('1'));
    await put(fs, '/vol2/bkt/top', Buffer.from('2'));
    expect(await fs.delete('/vol2/bkt/top')).toBe(true);
    expect(await fs.delete('/vol2/bkt/top')).toBe(false);
    await expect(fs.delete('/vol2/bkt/d')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_PATH_IS_NOT_EMPTY_DIRECTORY',
    });
    expect(await fs.exists('/vol2/bkt/d/e/f')).toBe(true);
    await expect(fs.delete('/vol2/bkt')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_PATH_IS_NOT_EMPTY_DIRECTORY',
    });
    await expect(fs.delete('/vol2')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_PATH_IS_NOT_EMPTY_DIRECTORY',
    });
    expect(await fs.delete('/vol2/bkt/d', true)).toBe(true);
    expect(await fs.exists('/vol2/bkt/d')).toBe(false);
    await put(fs, '/vol2/bkt/again/x', Buffer.from('3'));
    expect(await fs.delete('/vol2', true)).toBe(true);
    expect(await fs.exists('/vol2')).toBe(false);
  });

  it("rename: a file, a directory's subtree, into an existing directory, and Hadoop's false cases", async () => {
    await put(fs, '/vol3/bkt/src/one', Buffer.from('1'));
    await put(fs, '/vol3/bkt/src/sub/two', Buffer.from('2'));
    await fs.mkdirs('/vol3/bkt/into');
    await put(fs, '/vol3/bkt/file', Buffer.from('f'));
    expect(await fs.rename('/vol3/bkt/file', '/vol3/bkt/file2')).toBe(true);
    expect(await fs.exists('/vol3/bkt/file')).toBe(false);
    expect(await fs.rename('/vol3/bkt/src', '/vol3/bkt/moved')).toBe(true);
    expect((await cat(fs, '/vol3/bkt/moved/sub/two')).toString()).toBe('2');
    expect(await fs.exists('/vol3/bkt/src')).toBe(false);
    expect(await fs.rename('/vol3/bkt/moved', '/vol3/bkt/into')).toBe(true);
    expect((await cat(fs, '/vol3/bkt/into/moved/one')).toString()).toBe('1');
    expect(await fs.rename('/vol3/bkt/none', '/vol3/bkt/x')).toBe(false);
    expect(await fs.rename('/vol3/bkt/file2', '/vol3/bkt/into/moved/one')).toBe(false); // target exists
    expect(await fs.rename('/vol3/bkt/into', '/vol3/bkt/into/moved/deeper')).toBe(false); // under itself
    expect(await fs.rename('/vol3/bkt/file2', '/vol3/bkt/no/parent')).toBe(false);
    await expect(fs.rename('/vol3/bkt/file2', '/vol1/bucket1/file2')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_UNSUPPORTED',
    });
  });

  it('bad paths are typed errors before anything is sent', async () => {
    await expect(fs.getFileStatus('/vol1/bucket1/a:b')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_INVALID_PATH',
    });
    await expect(fs.getFileStatus('o3fs://b.v.host/x')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_INVALID_PATH',
    });
    await expect(fs.getFileStatus('ofs://elsewhere:1/x')).rejects.toMatchObject({
      code: 'ERR_OZONE_FS_INVALID_PATH',
    });
  });
});

describe('o3fs', () => {
  it('addresses one bucket: bucket.volume.om, the path is the key', async () => {
    await fs.mkdirs('/vol4/bucket4');
    const o3 = newFileSystemInstance(`o3fs://bucket4.vol4.${cluster.omAddress}/`, { userName: 'alice' });
    try {
      await put(o3, '/dir/file', Buffer.from('via o3fs'));
      expect((await cat(fs, '/vol4/bucket4/dir/file')).toString()).toBe('via o3fs');
      const o3uri = `o3fs://bucket4.vol4.${cluster.omAddress}`;
      expect((await o3.listStatus('/')).map((st) => st.path)).toEqual([`${o3uri}/dir`]);
      expect((await o3.getFileStatus('dir/file')).path).toBe(
        `o3fs://bucket4.vol4.${cluster.omAddress}/dir/file`,
      );
      expect(await o3.rename('/dir/file', '/file')).toBe(true);
      expect(await o3.delete('/dir', true)).toBe(true);
      expect(names(await fs.listStatus('/vol4/bucket4'))).toEqual(['/vol4/bucket4/file']);
    } finally {
      o3.close();
    }
  });
});

describe('the instance cache', () => {
  it('getFileSystem returns one instance per URI and user; newInstance and close give fresh ones', () => {
    const a = getFileSystem(`${uri}/vol1`, { userName: 'alice' });
    const b = getFileSystem(uri, { userName: 'alice' });
    const c = getFileSystem(uri, { userName: 'bob' });
    const d = newFileSystemInstance(uri, { userName: 'alice' });
    const e = getFileSystem(uri, { userName: 'alice', properties: { 'fs.ofs.impl.disable.cache': 'true' } });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(d).not.toBe(a);
    expect(e).not.toBe(a);
    a.close();
    const f = getFileSystem(uri, { userName: 'alice' });
    expect(f).not.toBe(a);
    for (const x of [c, d, e, f]) x.close();
  });
});
