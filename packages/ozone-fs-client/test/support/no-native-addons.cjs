// Preloaded (node --require) into a child process to stand for a machine where fastpath's native
// addon was not built: requiring it fails as a missing file would (other addons load as usual).
const Module = require('node:module');
const { basename } = require('node:path');

const load = Module._extensions['.node'];
Module._extensions['.node'] = (module, filename) => {
  if (basename(filename) !== 'fastpath_unix_fd.node') return load(module, filename);
  const error = new Error(`Cannot find module '${filename}'`);
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};
