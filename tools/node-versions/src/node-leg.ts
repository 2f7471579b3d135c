import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { environmentFor, fetchNode, type InstalledNode } from './fetch-node.js';
import { resolveNodeLine } from './node-lines.js';

/**
 * The tests a Node line runs unless told to run everything: every unit test (`src/**\/*.test.ts`)
 * and the contract suites against the embedded servers (Ozone's mini cluster over gRPC and
 * HTTP/2, the embedded Raft group, secure-random's), plus client-warmup's and core's own
 * integration tests (V8 code cache, the CommonJS entry). Left to the default line: the suites
 * against real JVMs (ZooKeeper, Hadoop's KMS, Ozone, Ratis) and the KDC, which test the peers more
 * than Node and would double CI's time for each line.
 */
export const LEG_TEST_PATHS: readonly string[] = Object.freeze([
  // Jest ORs the patterns. Nx hands them to npm, which hands them to a shell: no |, (, *, $ or \.
  '/src/.+.test.ts',
  'embedded-contract',
  'secure-random-contract',
  '/packages/client-warmup/test/',
  '/packages/core/test/',
]);

export interface NodeLegOptions {
  /** The repository root. */
  root: string;
  /** Run every test, not only {@link LEG_TEST_PATHS}. Default false. */
  all?: boolean;
  /** Extra arguments for `nx run-many` (`-p core kms-server`, `--skip-nx-cache`). */
  nxArgs?: readonly string[];
  /** Extra arguments for jest. */
  jestArgs?: readonly string[];
  /** Where the tool's messages go. Default stderr. */
  log?: (line: string) => void;
}

/** The cache of fetched Node releases, which git ignores. */
export const cacheDir = (root: string): string => join(root, 'tools', 'node-versions', '.cache');

/**
 * Runs the tests on Node `line` (`'22'`, `'24'`): fetches that Node, builds the native addons
 * (ozone-fs-client's and the optional `kerberos` package) with its headers and checks that they
 * load in it, then runs `nx run-many -t test` with it first on PATH. Both addons use Node-API, so
 * the binary built last serves every line. Resolves to the exit status of the first failing step,
 * or 0.
 *
 * @example
 * ```ts
 * process.exitCode = await runNodeLeg('24', { root: process.cwd() });
 * ```
 */
export async function runNodeLeg(line: string, options: NodeLegOptions): Promise<number> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const node = await fetchNode(resolveNodeLine(line), cacheDir(options.root));
  log(`node-versions: Node ${node.version} (${node.nodePath})`);
  const env = { ...environmentFor(node), npm_config_build_from_source: 'true' };
  const steps: Array<[string, string, string[]]> = [
    ['kerberos addon', 'npm', ['rebuild', 'kerberos', '--loglevel=error']],
    ['kerberos addon loads', 'node', ['-e', "require('kerberos')"]],
    [
      'ozone-fs-client addon',
      'npm',
      ['run', '--silent', 'build:native', '-w', '@fastpath/ozone-fs-client', '--', '--required', '--force'],
    ],
    [
      'tests',
      'npx',
      [
        'nx',
        'run-many',
        '-t',
        'test',
        '--output-style=static',
        '--parallel=2',
        ...(options.nxArgs ?? []),
        '--',
        ...(options.all === true
          ? []
          : [...LEG_TEST_PATHS.map((p) => `--testPathPatterns=${p}`), '--passWithNoTests']),
        ...(options.jestArgs ?? []),
      ],
    ],
  ];
  for (const [name, command, args] of steps) {
    const began = Date.now();
    const status = await runInherited(command, args, options.root, env);
    log(
      `node-versions: Node ${node.version}: ${name} ${status === 0 ? 'ok' : `FAILED (exit ${status})`} in ${Math.round((Date.now() - began) / 1000)} s`,
    );
    if (status !== 0) return status;
  }
  return 0;
}

function runInherited(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

export type { InstalledNode };
