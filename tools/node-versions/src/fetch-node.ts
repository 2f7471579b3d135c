import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { nodeBinaryPackage } from './node-lines.js';
import { NodeFetchError } from './node-versions-errors.js';

const run = promisify(execFile);

/** A Node release unpacked in the cache. */
export interface InstalledNode {
  /** `24.22.3`. */
  version: string;
  /** The install prefix: `bin/node` and the headers under `include/node` (for node-gyp's `--nodedir`). */
  prefix: string;
  /** `<prefix>/bin/node`. */
  nodePath: string;
}

/**
 * Makes sure Node `version` is unpacked under `cacheDir` and answers for itself, fetching its
 * binary package from the npm registry with npm (so the registry's integrity check and npm's own
 * cache apply) when it is not. The package holds the headers too, so node-gyp builds addons for
 * it with `--nodedir` and downloads nothing. An interrupted fetch leaves nothing in place.
 *
 * @example
 * ```ts
 * const node = await fetchNode('24.22.3', 'tools/node-versions/.cache');
 * console.log(node.nodePath); // …/node-v24.22.3-linux-x64/bin/node
 * ```
 */
export async function fetchNode(version: string, cacheDir: string): Promise<InstalledNode> {
  const pkg = nodeBinaryPackage();
  const prefix = join(cacheDir, `node-v${version}-${pkg.slice('node-'.length)}`);
  const nodePath = join(prefix, 'bin', 'node');
  if (!existsSync(nodePath)) {
    mkdirSync(cacheDir, { recursive: true });
    const work = mkdtempSync(join(cacheDir, '.fetch-'));
    try {
      const { stdout } = await run(
        'npm',
        ['pack', `${pkg}@${version}`, '--json', '--pack-destination', work],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      const [packed] = JSON.parse(stdout) as Array<{ filename?: string }>;
      if (packed?.filename === undefined)
        throw new Error(`npm pack printed no file name: ${stdout.slice(0, 200)}`);
      const unpacked = join(work, 'unpacked');
      mkdirSync(unpacked);
      await run('tar', ['-xzf', join(work, packed.filename), '-C', unpacked, '--strip-components=1']);
      rmSync(prefix, { recursive: true, force: true });
      renameSync(unpacked, prefix);
    } catch (err) {
      throw new NodeFetchError(
        version,
        `could not fetch ${pkg}@${version} from the npm registry: ${String(err)}`,
        err,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(nodePath, ['-p', 'process.version']);
  if (stdout.trim() !== `v${version}`) {
    rmSync(prefix, { recursive: true, force: true });
    throw new NodeFetchError(version, `${nodePath} says it is ${stdout.trim()}, not v${version}; removed it`);
  }
  return { version, prefix, nodePath };
}

/**
 * The environment that makes `node`, and everything started through it (npm, npx, Nx, jest,
 * node-gyp), run on `node`: its `bin` first on PATH, and node-gyp pointed at its headers so that
 * addons build for it without a download.
 */
export function environmentFor(
  node: InstalledNode,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  return {
    ...base,
    PATH: `${join(node.prefix, 'bin')}:${base.PATH ?? ''}`,
    npm_config_nodedir: node.prefix,
  };
}
