// How to start a read worker thread. Built, the worker is dist/internal/workers/read-worker-main.js
// (also from the bundled command, whose __dirname is dist/). From the TypeScript sources (this
// repository's tests and benchmarks, where the "development" condition points here), the worker
// registers tsx in itself and imports the .ts module: a worker does not inherit the loader of the
// thread that starts it. CommonJS, so that __dirname says which of the two this is.
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { packageDir } = require('../package-dir.cjs');

const SOURCE = join(__dirname, 'read-worker-main.ts');

/** The ES module entry of tsx's API (its CommonJS twin cannot register from a worker). */
function tsxEsmApi() {
  const pkgPath = require.resolve('tsx/package.json', { paths: [__dirname] });
  const exported = JSON.parse(readFileSync(pkgPath, 'utf8')).exports?.['./esm/api']?.import;
  const relative = typeof exported === 'string' ? exported : exported?.default;
  if (!relative) throw new Error(`tsx at ${dirname(pkgPath)} has no ./esm/api export`);
  return pathToFileURL(join(dirname(pkgPath), relative)).href;
}

/**
 * What `new Worker(script, { eval, execArgv })` needs to start a read worker.
 * @returns {{ script: string, eval: boolean, execArgv: string[] | undefined }}
 */
function readWorkerScript() {
  if (!existsSync(SOURCE))
    return {
      script: join(packageDir(__dirname), 'dist/internal/workers/read-worker-main.js'),
      eval: false,
      execArgv: undefined,
    };
  const script =
    `import(${JSON.stringify(tsxEsmApi())})\n` +
    `  .then((api) => api.register())\n` +
    `  .then(() => import(${JSON.stringify(pathToFileURL(SOURCE).href)}));\n`;
  return { script, eval: true, execArgv: ['--conditions', 'development'] };
}

module.exports = { readWorkerScript };
