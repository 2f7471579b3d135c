// Builds the optional native addon (native/unix-fd.c → native/build/Release/fastpath_unix_fd.node)
// with node-gyp against the headers of the Node that runs this script, so nothing is downloaded.
// Skips the build when the addon is newer than its sources. Without --required a failed build is
// reported and the script exits 0: the client then reads over gRPC only (short-circuit off).
// Usage: node scripts/build-native.mjs [--required] [--force]
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(pkg, 'native');
const addon = join(native, 'build/Release/fastpath_unix_fd.node');
const sources = ['unix-fd.c', 'binding.gyp'].map((f) => join(native, f));
const required = process.argv.includes('--required');
const force = process.argv.includes('--force');

function fail(message) {
  process.stderr.write(`build-native: ${message}\n`);
  if (required) process.exit(1);
  process.stderr.write('build-native: short-circuit reads stay off (the client reads over gRPC)\n');
  process.exit(0);
}

if (process.platform !== 'linux') fail(`no addon for ${process.platform} (Linux only)`);
if (!force && existsSync(addon) && sources.every((s) => statSync(s).mtimeMs <= statSync(addon).mtimeMs)) {
  process.exit(0);
}

// The headers of this very Node: an installed prefix has include/node/node_api.h beside bin/.
const prefix = resolve(dirname(process.execPath), '..');
if (!existsSync(join(prefix, 'include/node/node_api.h')))
  fail(`no Node headers under ${join(prefix, 'include/node')} (install the Node development headers)`);

// npm runs scripts with its own node-gyp in npm_config_node_gyp; run directly, use the node-gyp
// bundled with the npm installed beside this Node, else one on PATH.
const bundled = join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
const gyp = process.env.npm_config_node_gyp ?? (existsSync(bundled) ? bundled : undefined);
const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
try {
  execFileSync(command, [...args, 'rebuild', `--nodedir=${prefix}`, '--loglevel=error'], {
    cwd: native,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
} catch (err) {
  fail(`node-gyp failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
}
if (!existsSync(addon)) fail(`node-gyp finished but ${addon} is missing`);
