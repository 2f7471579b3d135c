import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

/**
 * Copies the sources of `packageDirs` (and the base tsconfig) into `stage`, laid out as in the
 * workspace, with a `node_modules` whose `@fastpath/*` entries point at the staged copies and
 * whose other entries are links to the workspace's installed packages. Builds and packs run in
 * the stage, so they never write `dist/` into the workspace, where tests running at the same
 * time start the KMS from `dist/` when it exists.
 *
 * @example
 * ```ts
 * stageWorkspace(root, stage, packages.map((p) => p.dir));
 * await run('npm', ['run', 'build'], { cwd: join(stage, 'packages', 'core') });
 * ```
 */
export function stageWorkspace(root: string, stage: string, packageDirs: readonly string[]): void {
  cpSync(join(root, 'tsconfig.base.json'), join(stage, 'tsconfig.base.json'));
  for (const dir of packageDirs) {
    cpSync(dir, join(stage, relative(root, dir)), {
      recursive: true,
      filter: (source) =>
        !['node_modules', 'dist'].includes(basename(source)) && !source.endsWith('.tsbuildinfo'),
    });
  }
  const modules = join(stage, 'node_modules');
  mkdirSync(join(modules, '@fastpath'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === '@fastpath') continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const dir of packageDirs) {
    symlinkSync(join(stage, relative(root, dir)), join(modules, '@fastpath', basename(dir)));
  }
}
