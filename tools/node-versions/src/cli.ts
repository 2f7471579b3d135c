// `npm run test:node -- <line> [--all] [nx run-many args] [-- jest args]`: the tests on a tested
// Node line (the unit and embedded contract tests unless --all). `npm run --silent node:path --
// <line>`: fetches that Node and prints its bin folder, for PATH.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fetchNode } from './fetch-node.js';
import { resolveNodeLine } from './node-lines.js';
import { cacheDir, runNodeLeg } from './node-leg.js';

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object))
      return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with workspaces above ${start}`);
  }
}

const [command, line, ...rest] = process.argv.slice(2);
const usage = 'usage: cli.ts test <22|24> [--all] [nx args] [-- jest args] | cli.ts path <22|24>';
const root = findRoot(process.cwd());
if (line === undefined || (command !== 'test' && command !== 'path')) {
  process.stderr.write(`${usage}\n`);
  process.exitCode = 2;
} else if (command === 'path') {
  const node = await fetchNode(resolveNodeLine(line), cacheDir(root));
  process.stdout.write(`${join(node.prefix, 'bin')}\n`);
} else {
  const split = rest.indexOf('--');
  const own = split === -1 ? rest : rest.slice(0, split);
  process.exitCode = await runNodeLeg(line, {
    root,
    all: own.includes('--all'),
    nxArgs: own.filter((a) => a !== '--all'),
    jestArgs: split === -1 ? [] : rest.slice(split + 1),
  });
}
