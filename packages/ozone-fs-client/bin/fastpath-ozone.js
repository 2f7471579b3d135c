#!/usr/bin/env node
// The fastpath-ozone command (`fastpath-ozone fs …`).
import { runEntry } from './run-entry.js';

await runEntry('fs/fs-cli-main');
