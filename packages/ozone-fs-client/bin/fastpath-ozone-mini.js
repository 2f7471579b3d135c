#!/usr/bin/env node
// The fastpath-ozone-mini command.
import { runEntry } from './run-entry.js';

await runEntry('testing/mini-cluster-main');
