// The API reference (`npm run docs:api`, written to docs/api/, git-ignored): one TypeDoc site over
// every public package, each entry point read from the package's `exports` (the `development`
// condition's TypeScript source), so a new subpath such as `/testing` is documented, and checked,
// as soon as it is exported. The check fails on an exported symbol without a doc comment and on a
// `{@link}` that does not resolve (validation warnings are errors).
import { readdirSync, readFileSync } from 'node:fs';

const packageDirs = readdirSync('packages', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `packages/${entry.name}`);

const publicManifests = packageDirs
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) }))
  .filter(({ manifest }) => !manifest.private);

const entryPoints = publicManifests.flatMap(({ dir, manifest }) => {
  return Object.values(manifest.exports ?? {})
    .map((target) => target?.development)
    .filter((source) => typeof source === 'string')
    .map((source) => `${dir}/${source.replace(/^\.\//, '')}`);
});

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'fastpath',
  entryPoints,
  tsconfig: 'tsconfig.docs.json',
  out: 'docs/api',
  readme: 'none',
  // No links to sources: they need a git remote, which a local clone may not have.
  disableSources: true,
  excludePrivate: true,
  excludeInternal: true,
  validation: {
    notExported: true,
    invalidLink: true,
    rewrittenLink: true,
    notDocumented: true,
    unusedMergeModuleWith: true,
  },
  // TypeDoc asks for comments only in the package it runs in (the private root, here) unless told
  // which packages' symbols must be documented.
  packagesRequiringDocumentation: publicManifests.map(({ manifest }) => manifest.name),
  treatValidationWarningsAsErrors: true,
};
