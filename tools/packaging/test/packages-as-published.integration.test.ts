import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startKmsProcess, type KmsProcess } from '@fastpath/kms-server/testing';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkMkdirp,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import ts from 'typescript';
import { publishablePackages, type PublishablePackage } from '../src/publishable-packages.js';
import { readmeExample } from '../src/readme-example.js';
import { stageWorkspace } from '../src/stage-workspace.js';

// Each publishable package as the teams that use fastpath take it: built, packed with `npm pack`,
// installed from the tarballs into an empty project outside the workspace, and its README's
// minimal example run there (the services an example talks to are started by the test and their
// addresses put in). publint and arethetypeswrong must report nothing for any tarball.

jest.setTimeout(20 * 60_000);

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = publishablePackages(ROOT);
const ROOT_MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

let work: string;
let consumer: string;
const tarballs = new Map<string, string>();
let zk: ZooKeeperFixture | undefined;
let kms: KmsProcess | undefined;

/** What an example needs changed to reach the services of this test, exactly as written. */
function substitutions(name: string): ReadonlyArray<readonly [string, string]> {
  switch (name) {
    case '@fastpath/kms-client':
      return [["'http://127.0.0.1:9600/kms'", `'${kms?.url}/kms'`]];
    case '@fastpath/kms-server':
      return [["'/tmp/kms-data'", JSON.stringify(join(work, 'kms-data'))]];
    case '@fastpath/zookeeper-client':
      return [["'127.0.0.1:2181'", `'${zk?.connectString}'`]];
    default:
      return [];
  }
}

function example(pkg: PublishablePackage): string {
  const installed = join(consumer, 'node_modules', ...pkg.name.split('/'));
  let source = readmeExample(readFileSync(join(installed, 'README.md'), 'utf8'));
  for (const [from, to] of substitutions(pkg.name)) {
    if (!source.includes(from)) throw new Error(`${pkg.name}: the README example no longer contains ${from}`);
    source = source.replaceAll(from, to);
  }
  return source;
}

const fileName = (pkg: PublishablePackage): string => pkg.name.replace('@fastpath/', '');

async function node(file: string): Promise<void> {
  try {
    await run(process.execPath, [file], { cwd: consumer, timeout: 180_000 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fastpath-packaging-'));
  consumer = join(work, 'consumer');
  mkdirSync(join(work, 'tarballs'));
  mkdirSync(consumer);
  const stage = join(work, 'stage');
  stageWorkspace(
    ROOT,
    stage,
    PACKAGES.map((pkg) => pkg.dir),
  );
  for (const pkg of PACKAGES) {
    const dir = join(stage, 'packages', basename(pkg.dir));
    await run('npm', ['run', 'build', '--silent'], { cwd: dir });
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', join(work, 'tarballs')], {
      cwd: dir,
    });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
    tarballs.set(pkg.name, join(work, 'tarballs', packed?.filename ?? ''));
  }
  const dependencies: Record<string, string> = {
    '@types/node': ROOT_MANIFEST.devDependencies['@types/node'] ?? '',
  };
  for (const [name, tarball] of tarballs) dependencies[name] = `file:${tarball}`;
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
  );
  // The optional `kerberos` addon builds from source here, as in the workspace (.prebuild-installrc):
  // its install step would otherwise first try to download a prebuilt binary.
  writeFileSync(join(consumer, '.prebuild-installrc'), 'buildFromSource=true\n');
  // Third-party dependencies come from the local npm cache where it has them.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: consumer,
  });

  zk = await startZooKeeper();
  const client = await connectZooKeeper(zk.connectString);
  try {
    await zkMkdirp(client, '/app'); // the zookeeper-client example creates /app/item
  } finally {
    await closeZooKeeperClient(client);
  }
  kms = await startKmsProcess({ packageDir: join(consumer, 'node_modules', '@fastpath', 'kms-server') });
});

afterAll(async () => {
  await kms?.stop();
  await zk?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe.each(PACKAGES.map((pkg) => [pkg.name, pkg] as const))('%s as published', (_name, pkg) => {
  it('publint and arethetypeswrong report nothing', async () => {
    const tarball = tarballs.get(pkg.name) as string;
    const publint = await run(join(BIN, 'publint'), ['run', tarball], { cwd: work });
    expect(publint.stdout).toContain('All good!');
    // An ESM-only package is checked for what it offers; one that offers require is checked in full.
    const profile = pkg.claimsCommonJs ? 'strict' : 'esm-only';
    await expect(
      run(join(BIN, 'attw'), [tarball, '--profile', profile, '--no-definitely-typed', '--format', 'ascii'], {
        cwd: work,
      }),
    ).resolves.toBeDefined();
  });

  it('runs its README example as ESM in a project outside the workspace', async () => {
    const js = ts.transpileModule(example(pkg), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(consumer, `${fileName(pkg)}.example.mjs`), js);
    await node(`${fileName(pkg)}.example.mjs`);
  });

  if (pkg.claimsCommonJs) {
    it('runs its README example as CommonJS', async () => {
      const body = ts.transpileModule(example(pkg), {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      writeFileSync(join(consumer, `${fileName(pkg)}.example.cjs`), `(async () => {\n${body}\n})();\n`);
      await node(`${fileName(pkg)}.example.cjs`);
    });
  }
});

it('the README examples type-check against the installed packages', async () => {
  const dir = join(consumer, 'typecheck');
  mkdirSync(dir, { recursive: true });
  for (const pkg of PACKAGES) writeFileSync(join(dir, `${fileName(pkg)}.mts`), `${example(pkg)}export {};\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023', 'esnext.disposable'],
        strict: true,
        noEmit: true,
        types: ['node'],
        // Unused locals are fine in an example that shows what a call returns.
        noUnusedLocals: false,
      },
      include: ['*.mts'],
    }),
  );
  try {
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], {
      cwd: dir,
    });
  } catch (error) {
    const e = error as { stdout?: string; message: string };
    throw new Error(`the examples do not type-check:\n${e.stdout ?? e.message}`);
  }
});
