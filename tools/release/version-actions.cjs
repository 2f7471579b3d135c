// Nx release's version actions for this npm workspace. Nx's own JavaScript ones live in @nx/js,
// which has no release for Nx 24 (mixing plugin majors installs a second Nx); these do what a
// workspace of npm packages needs and no more: the version in package.json, and each internal
// dependency written as a caret range of the version released, so that a packed package.json
// asks npm for a compatible release of its sibling, not one exact build of it.
// CommonJS so that Nx loads it without a TypeScript loader.
'use strict';
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { VersionActions } = require('nx/release');
const { readCachedProjectGraph } = require('nx/src/devkit-exports');

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

const readJson = (tree, path) => JSON.parse(tree.read(path, 'utf-8'));
const writeJson = (tree, path, value) => tree.write(path, `${JSON.stringify(value, null, 2)}\n`);

class NpmWorkspaceVersionActions extends VersionActions {
  validManifestFilenames = ['package.json'];

  manifestPath() {
    return join(this.projectGraphNode.data.root, 'package.json');
  }

  async readCurrentVersionFromSourceManifest(tree) {
    const manifestPath = this.manifestPath();
    return { currentVersion: readJson(tree, manifestPath).version, manifestPath };
  }

  // Versions are resolved from git tags or package.json (nx.json's currentVersionResolver); the
  // registry is never asked, since nothing is read from it at release time.
  async readCurrentVersionFromRegistry() {
    return null;
  }

  async readCurrentVersionOfDependency(tree, projectGraph, dependencyProjectName) {
    const name = packageName(tree, projectGraph, dependencyProjectName);
    const manifest = readJson(tree, this.manifestPath());
    for (const field of DEPENDENCY_FIELDS) {
      const spec = manifest[field]?.[name];
      if (spec !== undefined)
        return { currentVersion: spec.replace(/^[\^~]/, ''), dependencyCollection: field };
    }
    return { currentVersion: null, dependencyCollection: null };
  }

  async updateProjectVersion(tree, newVersion) {
    const manifestPath = this.manifestPath();
    const manifest = readJson(tree, manifestPath);
    manifest.version = newVersion;
    writeJson(tree, manifestPath, manifest);
    const logs = [`✍️  New version ${newVersion} written to manifest: ${manifestPath}`];
    // A package that reports its own version (kms-server's health answer and `--version`) keeps it
    // in src/internal/version.ts, since a bundled build cannot read its package.json; the release
    // writes it with the manifest so that the two never differ.
    const versionModule = join(this.projectGraphNode.data.root, 'src', 'internal', 'version.ts');
    if (tree.exists(versionModule)) {
      const source = tree.read(versionModule, 'utf-8');
      const updated = source.replace(/(_VERSION = ')[^']*(')/, `$1${newVersion}$2`);
      if (updated !== source) {
        tree.write(versionModule, updated);
        logs.push(`✍️  New version ${newVersion} written to ${versionModule}`);
      }
    }
    return logs;
  }

  async updateProjectDependencies(tree, projectGraph, dependenciesToUpdate) {
    const manifestPath = this.manifestPath();
    const manifest = readJson(tree, manifestPath);
    const logs = [];
    for (const [project, version] of Object.entries(dependenciesToUpdate)) {
      const name = packageName(tree, projectGraph, project);
      for (const field of DEPENDENCY_FIELDS) {
        if (manifest[field]?.[name] === undefined) continue;
        manifest[field][name] = `^${version}`;
        logs.push(`✍️  ${name} in ${field} of ${manifestPath}: ^${version}`);
      }
    }
    writeJson(tree, manifestPath, manifest);
    return logs;
  }
}

function packageName(tree, projectGraph, project) {
  const node = projectGraph.nodes[project];
  if (node === undefined) throw new Error(`no project ${project} in the project graph`);
  return readJson(tree, join(node.data.root, 'package.json')).name;
}

module.exports = NpmWorkspaceVersionActions;

// After every released package.json is written: the private workspaces (tools, benchmarks) that
// use a released package follow it (npm would otherwise look for the old version in the
// registry), then the lockfile is brought in line.
module.exports.afterAllProjectsVersioned = async (cwd, { dryRun }) => {
  if (dryRun) return { changedFiles: [], deletedFiles: [] };
  const roots = Object.values(readCachedProjectGraph().nodes).map((node) => node.data.root);
  const changedFiles = alignPrivateDependents(cwd, roots);
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    stdio: 'inherit',
  });
  return { changedFiles: [...changedFiles, 'package-lock.json'], deletedFiles: [] };
};

/**
 * Points every private workspace's dependency on a public one at that package's version on disk,
 * keeping the specifier's style (`0.2.0`, `^0.2.0`) where the old one no longer names it.
 * Returns the package.json files it changed, relative to root.
 */
function alignPrivateDependents(root, dirs) {
  const packages = dirs.map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
  }));
  const versions = new Map(
    packages.filter((p) => p.manifest.private !== true).map((p) => [p.manifest.name, p.manifest.version]),
  );
  const changed = [];
  for (const { dir, manifest } of packages) {
    if (manifest.private !== true) continue;
    let touched = false;
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
        const version = versions.get(name);
        if (version === undefined || spec === '*' || spec.replace(/^[\^~]/, '') === version) continue;
        manifest[field][name] = `${/^[\^~]/.exec(spec)?.[0] ?? ''}${version}`;
        touched = true;
      }
    }
    if (touched) {
      writeFileSync(join(root, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      changed.push(`${dir}/package.json`);
    }
  }
  return changed;
}

module.exports.alignPrivateDependents = alignPrivateDependents;
