import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import { JavaCompileError } from './jvm-errors.js';
import { locateJava } from './locate-java.js';
import { runProcess } from './run-process.js';

/** What to compile, against what, and where to put the classes. */
export interface CompileJavaOptions {
  /** Folder of `.java` sources (searched recursively). */
  sourceDir: string;
  /** Output folder for the classes (git-ignored, e.g. inside the tool's cache). */
  outDir: string;
  /** Class path the sources compile against. Default: none. */
  classpath?: readonly string[];
  /** `javac --release`. Default 17. */
  release?: number;
  /** The `javac` executable. Default: beside `java` (see `locateJava`) or on the PATH. */
  javacPath?: string;
  /** Upper bound for javac. Default 300000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_COMPILE_JAVA_OPTIONS = Object.freeze({ release: 17, timeoutMs: 300_000 });

/** The compiled classes folder, and whether this call ran javac (false: up to date). */
export interface CompiledJava {
  readonly classesDir: string;
  readonly compiled: boolean;
}

/**
 * Compiles a small Java source folder with `javac` into `outDir`, skipping the run when the
 * sources, class path and release are unchanged since the last compile (a stamp file in `outDir`).
 *
 * @throws JavaNotFoundError when there is no javac
 * @throws JavaCompileError with javac's diagnostics
 */
export async function compileJava(options: CompileJavaOptions): Promise<CompiledJava> {
  const sourceDir = resolve(checkNonEmptyString('sourceDir', options.sourceDir));
  const outDir = resolve(checkNonEmptyString('outDir', options.outDir));
  const release = checkInteger('release', options.release ?? DEFAULT_COMPILE_JAVA_OPTIONS.release, 8, 99);
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? DEFAULT_COMPILE_JAVA_OPTIONS.timeoutMs, 1);
  const classpath = options.classpath ?? [];
  const sources = await javaFiles(sourceDir);
  if (sources.length === 0) throw new InvalidOptionError('sourceDir', `no .java files in ${sourceDir}`);

  const hash = createHash('sha256').update(`${release}\0${classpath.join(':')}\0`);
  for (const file of sources)
    hash
      .update(relative(sourceDir, file))
      .update('\0')
      .update(await readFile(file));
  const key = hash.digest('hex');
  const stampFile = join(outDir, '.compile-stamp');
  try {
    if ((await readFile(stampFile, 'utf8')) === key) return { classesDir: outDir, compiled: false };
  } catch {
    // never compiled
  }

  const javac =
    options.javacPath ??
    (await locateJava({ requireJavac: true, purpose: `compiling ${sourceDir}` })).javacPath;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const args = [
    '--release',
    String(release),
    '-encoding',
    'UTF-8',
    '-d',
    outDir,
    ...(classpath.length === 0 ? [] : ['-cp', classpath.join(':')]),
    ...sources,
  ];
  const result = await runProcess(javac as string, args, { timeoutMs });
  if (result.code !== 0) throw new JavaCompileError(sourceDir, `${result.stdout}${result.stderr}`.trim());
  await writeFile(stampFile, key);
  return { classesDir: outDir, compiled: true };
}

async function javaFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await javaFiles(path)));
    else if (entry.name.endsWith('.java')) found.push(path);
  }
  return found.sort();
}
