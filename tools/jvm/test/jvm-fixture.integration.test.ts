import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '@fastpath/test-support';
import {
  compileJava,
  JavaCompileError,
  locateJava,
  MavenResolutionError,
  pickFreePorts,
  pollUntil,
  ProcessTimeoutError,
  resolveMavenArtifacts,
  runProcess,
  spawnServer,
} from '@fastpath/jvm-fixture';

jest.setTimeout(300_000);

const fixtures = join(__dirname, 'fixtures');
let scratch: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fastpath-jvm-test-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('javac and java', () => {
  it('compiles a source folder once and runs the class', async () => {
    const outDir = join(scratch, 'classes');
    const first = await compileJava({ sourceDir: join(fixtures, 'hello'), outDir });
    expect(first.compiled).toBe(true);
    await stat(join(outDir, 'dev', 'fastpath', 'hello', 'Hello.class'));
    // Unchanged sources: javac does not run again.
    expect((await compileJava({ sourceDir: join(fixtures, 'hello'), outDir })).compiled).toBe(false);

    const { javaPath } = await locateJava();
    const run = await runProcess(javaPath, ['-cp', outDir, 'dev.fastpath.hello.Hello', 'a', 'ü"b']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(['a', 'ü"b']);
  });

  it('reports javac diagnostics as a JavaCompileError', async () => {
    const src = join(scratch, 'src');
    await mkdir(src);
    await writeFile(join(src, 'Broken.java'), 'public class Broken { int x = ; }\n');
    const compile = compileJava({ sourceDir: src, outDir: join(scratch, 'out') });
    await expect(compile).rejects.toBeInstanceOf(JavaCompileError);
    await expect(compile).rejects.toThrow(/Broken\.java:1: error/);
  });

  it('kills a command that outlives its bound', async () => {
    const outDir = join(scratch, 'classes');
    await compileJava({ sourceDir: join(fixtures, 'hello'), outDir });
    const { javaPath } = await locateJava();
    const run = runProcess(javaPath, ['-cp', outDir, 'dev.fastpath.hello.Hello', 'sleep'], {
      timeoutMs: 3_000,
    });
    await expect(run).rejects.toBeInstanceOf(ProcessTimeoutError);
    await expect(run).rejects.toMatchObject({ code: 'ERR_PROCESS_TIMEOUT' });
  });
});

/**
 * A parent node process that calls `spawnServer(<args>)`, prints the server's pid and waits to be
 * SIGKILLed: no exit handlers run, so only the watchdog can end the server and delete its folder.
 * One process (not the tsx CLI, which runs the script in a child), so that SIGKILL hits the parent
 * itself; the sources are TypeScript, so it runs with tsx's loader.
 */
async function startParent(
  spawnServerArgs: string,
): Promise<{ parent: ChildProcessByStdio<null, Readable, null>; pid: number }> {
  const parentFile = join(scratch, 'parent.ts');
  await writeFile(
    parentFile,
    `import { spawnServer } from ${JSON.stringify(join(__dirname, '..', 'src', 'process-registry.ts'))};\n` +
      `const s = spawnServer(${spawnServerArgs});\n` +
      `process.stdout.write('pid=' + String(s.pid) + '\\n'); setInterval(() => undefined, 1000);\n`,
  );
  const parent = spawn(process.execPath, ['--import', 'tsx', parentFile], {
    cwd: __dirname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    // Plain text with a marker: a runner may set FORCE_COLOR, and the parent's output is parsed.
    const pid = await new Promise<number>((resolve, reject) => {
      let seen = '';
      parent.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /pid=(\d+)/.exec(seen);
        if (m !== null) resolve(Number(m[1]));
      });
      parent.on('exit', (code) =>
        reject(new Error(`parent exited (${String(code)}) before printing a pid: ${seen}`)),
      );
    });
    return { parent, pid };
  } catch (err) {
    stopParent(parent);
    throw err;
  }
}

/** Also when an expectation failed before the kill: no parent may outlive the test. */
function stopParent(parent: ChildProcessByStdio<null, Readable, null>): void {
  if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
  parent.stdout.destroy();
}

describe('spawnServer', () => {
  it('a server JVM dies with the process that started it, even by SIGKILL (watchdog)', async () => {
    const outDir = join(scratch, 'classes');
    await compileJava({ sourceDir: join(fixtures, 'hello'), outDir });
    const { javaPath } = await locateJava();
    const serverDir = join(scratch, 'server');
    await mkdir(serverDir);
    const { parent, pid } = await startParent(
      `${JSON.stringify(javaPath)}, ['-cp', ${JSON.stringify(outDir)}, 'dev.fastpath.hello.Hello', 'sleep'], ` +
        `{ cwd: ${JSON.stringify(serverDir)}, logFile: ${JSON.stringify(join(serverDir, 'log'))}, cleanupDir: ${JSON.stringify(serverDir)} }`,
    );
    try {
      expect(isAlive(pid)).toBe(true);
      const logged = await pollUntil(
        async () =>
          (await readFile(join(serverDir, 'log'), 'utf8').catch(() => '')).includes('sleep')
            ? true
            : undefined,
        { timeoutMs: 30_000 },
      );
      expect(logged).toBe(true);
      parent.kill('SIGKILL');
      const gone = await pollUntil(() => Promise.resolve(isAlive(pid) ? undefined : true), {
        timeoutMs: 30_000,
      });
      expect(gone).toBe(true);
      const removed = await pollUntil(
        async () => ((await stat(serverDir).catch(() => undefined)) ? undefined : true),
        {
          timeoutMs: 10_000,
        },
      );
      expect(removed).toBe(true);
    } finally {
      stopParent(parent);
    }
  });

  it('the watchdog deletes the directory even when files still land in it after the kill', async () => {
    // SIGKILL takes effect as each thread leaves the kernel, so a dying JVM's last file creations
    // land after the kill. Modelled by a writer the server leaves behind (a background subshell,
    // which the watchdog's kill of the server's pid does not reach), filling the directory until
    // the test lets it stop: one `rm -rf` at the kill leaves the directory there, not empty.
    const serverDir = join(scratch, 'server');
    const stopWriting = join(scratch, 'stop-writing');
    await mkdir(serverDir);
    const writer =
      'i=0; while [ ! -e "$2" ] && [ $i -lt 1000000 ]; do i=$((i + 1)); : > "$1/late-$i" 2>/dev/null; done';
    const { parent, pid } = await startParent(
      `'/bin/sh', ['-c', ${JSON.stringify(`(${writer}) & exec sleep 600`)}, 'server', ` +
        `${JSON.stringify(serverDir)}, ${JSON.stringify(stopWriting)}], ` +
        `{ cwd: ${JSON.stringify(scratch)}, logFile: ${JSON.stringify(join(scratch, 'log'))}, cleanupDir: ${JSON.stringify(serverDir)} }`,
    );
    try {
      const writing = await pollUntil(
        async () => ((await readdir(serverDir)).length > 100 ? true : undefined),
        { timeoutMs: 10_000 },
      );
      expect(writing).toBe(true);
      parent.kill('SIGKILL');
      expect(
        await pollUntil(() => Promise.resolve(isAlive(pid) ? undefined : true), { timeoutMs: 30_000 }),
      ).toBe(true);
      // The files keep coming after the server is gone, until the watchdog has started deleting
      // (fewer files than the writer made, or, between two of its writes, no folder), then stop.
      const deleting = await pollUntil(
        async () => {
          const names = await readdir(serverDir).catch(() => undefined);
          if (names === undefined) return true;
          const written = names.reduce((max, n) => Math.max(max, Number(n.slice('late-'.length))), 0);
          return names.length < written ? true : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(deleting).toBe(true);
      await writeFile(stopWriting, '');
      const removed = await pollUntil(
        async () => ((await stat(serverDir).catch(() => undefined)) ? undefined : true),
        { timeoutMs: 10_000 },
      );
      expect(removed).toBe(true);
    } finally {
      await writeFile(stopWriting, '');
      stopParent(parent);
    }
  });

  it('reports the exit of a server and distinct free ports', async () => {
    const server = spawnServer('/bin/sh', ['-c', 'echo hi; exit 3'], {
      cwd: scratch,
      logFile: join(scratch, 'log'),
      cleanupDir: join(scratch, 'none'),
    });
    expect(await server.exited).toEqual({ code: 3, signal: null });
    expect(server.exit()).toEqual({ code: 3, signal: null });
    expect(server.signal('SIGTERM')).toBe(false);
    expect(await readFile(join(scratch, 'log'), 'utf8')).toBe('hi\n');
    const ports = await pickFreePorts(3);
    expect(new Set(ports).size).toBe(3);
  });
});

describe('resolveMavenArtifacts', () => {
  it('names the artifact that cannot be resolved', async () => {
    const lines: string[] = [];
    const resolve = resolveMavenArtifacts({
      pomDir: join(fixtures, 'missing-artifact'),
      cacheDir: join(scratch, 'cache'),
      // Offline: the test needs no network to see Maven fail, and the message must still name it.
      offline: true,
      onProgress: (line) => lines.push(line),
    });
    await expect(resolve).rejects.toBeInstanceOf(MavenResolutionError);
    await expect(resolve).rejects.toMatchObject({
      code: 'ERR_MAVEN_RESOLUTION',
      artifact: 'dev.fastpath.test:does-not-exist:jar:0.0.1',
    });
    await expect(resolve).rejects.toThrow(/dev\.fastpath\.test:does-not-exist:jar:0\.0\.1 failed/);
    expect(lines[0]).toMatch(/^resolving .*pom\.xml \(offline/);
  });

  it('resolves a class path once, then answers from the cache without Maven', async () => {
    const cacheDir = join(scratch, 'cache');
    const first = await resolveMavenArtifacts({
      pomDir: join(fixtures, 'small-artifact'),
      cacheDir,
      onProgress: () => undefined,
    });
    expect(first.maven).toBe('online');
    expect(first.classpath).toHaveLength(1);
    expect(first.classpath[0]).toMatch(/commons-cli-1\.9\.0\.jar$/);
    expect(first.classpathBytes).toBeGreaterThan(10_000);
    const second = await resolveMavenArtifacts({ pomDir: join(fixtures, 'small-artifact'), cacheDir });
    expect(second.maven).toBe('none');
    expect(second.classpath).toEqual(first.classpath);

    // copyJars: the jar lands in the cache folder and the class path points there.
    const copied = await resolveMavenArtifacts({
      pomDir: join(fixtures, 'small-artifact'),
      cacheDir: join(scratch, 'copied'),
      copyJars: true,
      offline: true,
      onProgress: () => undefined,
    });
    expect(copied.maven).toBe('offline');
    expect(copied.classpath).toEqual([join(scratch, 'copied', 'lib', 'commons-cli-1.9.0.jar')]);
    await stat(copied.classpath[0] as string);
  });
});
