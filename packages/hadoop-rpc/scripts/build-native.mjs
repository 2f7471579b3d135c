// Builds the optional GSS-API addon (native/gss/gss.c → native/gss/build/Release/fastpath_gss.node)
// with node-gyp against the headers of the Node that runs this script, so nothing is downloaded.
// It links MIT Kerberos's libgssapi_krb5 and needs its headers (Debian's libkrb5-dev). Only the
// KERBEROS SASL method uses it: without it that method fails with ERR_HADOOP_RPC_KERBEROS
// (reason 'unavailable'), and SIMPLE and TOKEN work as before. Skips a build newer than its
// sources. Without --required a failed build is reported and the script exits 0 (so an install
// never fails for it); the package's own tests pass --required.
// Usage: node scripts/build-native.mjs [--required] [--force]
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../native/gss');
const out = join(dir, 'build/Release/fastpath_gss.node');
const required = process.argv.includes('--required');
const force = process.argv.includes('--force');

const problem = build();
if (problem !== undefined) {
  process.stderr.write(`build-native: ${problem}\nbuild-native: the KERBEROS SASL method is unavailable\n`);
  process.exit(required ? 1 : 0);
}

/** Builds the addon; returns why it could not, or undefined. */
function build() {
  if (process.platform !== 'linux') return `no GSS addon for ${process.platform} (Linux only)`;
  const sources = ['gss.c', 'binding.gyp'].map((f) => join(dir, f));
  if (!force && existsSync(out) && sources.every((s) => statSync(s).mtimeMs <= statSync(out).mtimeMs)) return;
  if (!existsSync('/usr/include/gssapi/gssapi.h')) return 'gssapi.h is missing (install libkrb5-dev)';
  // The headers of this very Node: an installed prefix has include/node/node_api.h beside bin/.
  const prefix = resolve(dirname(process.execPath), '..');
  if (!existsSync(join(prefix, 'include/node/node_api.h')))
    return `no Node headers under ${join(prefix, 'include/node')} (install the Node development headers)`;
  // npm gives its own node-gyp in npm_config_node_gyp; run directly, the one bundled with the npm
  // installed beside this Node, else one on PATH.
  const bundled = join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  const gyp = process.env.npm_config_node_gyp ?? (existsSync(bundled) ? bundled : undefined);
  const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
  try {
    execFileSync(command, [...args, 'rebuild', `--nodedir=${prefix}`, '--loglevel=error'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    return `node-gyp failed in ${dir}: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  if (!existsSync(out)) return `node-gyp finished but ${out} is missing`;
}
