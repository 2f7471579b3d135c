// `npm run test:node -- <line> [--all] [nx run-many args] [-- jest args]`: the tests on a tested
// Node line (the unit and embedded contract tests unless --all). `npm run --silent node:path --
// <line>`: fetches that Node and prints its bin folder, for PATH.
import { join } from 'node:path';
import { findWorkspaceRoot } from '@fastpath/repo-checks';
import { fetchNode } from './fetch-node.js';
import { resolveNodeLine } from './node-lines.js';
import { cacheDir, runNodeLeg } from './node-leg.js';

const [command, line, ...rest] = process.argv.slice(2);
const usage = 'usage: cli.ts test <22|24> [--all] [nx args] [-- jest args] | cli.ts path <22|24>';
const root = findWorkspaceRoot(process.cwd());
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
