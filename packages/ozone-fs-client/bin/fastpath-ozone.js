#!/usr/bin/env node
// The fastpath-ozone command (`fastpath-ozone fs …`). A built package runs the command bundled
// into one file through a V8 code cache (bin/load-bundle.js says how to turn that off); without a
// build, the sources run as they are.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './load-bundle.js';
import { runEntry } from './run-entry.js';

const bundle = fileURLToPath(new URL('../dist/fastpath-ozone.cjs', import.meta.url));
if (existsSync(bundle)) await loadBundle(bundle, 'fastpath-ozone');
else await runEntry('fs/fs-cli-main');
