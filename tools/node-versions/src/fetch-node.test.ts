import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentFor, fetchNode } from './fetch-node.js';
import { NodeFetchError } from './node-versions-errors.js';

// A cached release is trusted only when its binary answers with its version: these plant a
// "node" (a shell script) in the cache, so no download happens.
let cache: string;
beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), 'node-versions-'));
});
afterEach(() => rmSync(cache, { recursive: true, force: true }));

function plant(version: string, answers: string): string {
  const prefix = join(cache, `node-v${version}-linux-${process.arch}`);
  mkdirSync(join(prefix, 'bin'), { recursive: true });
  writeFileSync(join(prefix, 'bin', 'node'), `#!/bin/sh\necho ${answers}\n`);
  chmodSync(join(prefix, 'bin', 'node'), 0o755);
  return prefix;
}

describe('fetchNode', () => {
  it('uses a cached release that answers with its version', async () => {
    const prefix = plant('24.0.0', 'v24.0.0');
    await expect(fetchNode('24.0.0', cache)).resolves.toEqual({
      version: '24.0.0',
      prefix,
      nodePath: join(prefix, 'bin', 'node'),
    });
  });

  it('removes a cached release that answers with another version, and says so', async () => {
    const prefix = plant('24.0.0', 'v20.0.0');
    const err = await fetchNode('24.0.0', cache).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeFetchError);
    expect(err).toMatchObject({ code: 'ERR_NODE_FETCH_FAILED', version: '24.0.0', retriable: true });
    expect(existsSync(prefix)).toBe(false);
  });
});

describe('environmentFor', () => {
  it("puts the release's bin first on PATH and points node-gyp at its headers", () => {
    const env = environmentFor(
      { version: '24.0.0', prefix: '/n', nodePath: '/n/bin/node' },
      { PATH: '/usr/bin', HOME: '/h' },
    );
    expect(env).toEqual({ PATH: '/n/bin:/usr/bin', HOME: '/h', npm_config_nodedir: '/n' });
  });
});
