// Preloaded (node --require) into a child process to stand for a machine where some of fastpath's
// native addons were not built: requiring one fails as a missing file would (other addons load as
// usual). Which ones: FASTPATH_MISSING_ADDONS, a comma-separated list of file names, by default
// the short-circuit addon.
const Module = require('node:module');
const { basename } = require('node:path');

const missing = (process.env.FASTPATH_MISSING_ADDONS ?? 'fastpath_unix_fd.node').split(',');
const load = Module._extensions['.node'];
Module._extensions['.node'] = (module, filename) => {
  if (!missing.includes(basename(filename))) return load(module, filename);
  const error = new Error(`Cannot find module '${filename}'`);
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};
