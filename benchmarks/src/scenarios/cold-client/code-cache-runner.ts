// Runs the single-file probe through @fastpath/client-warmup's V8 code cache. Bundled with the
// scenario's other probes; argv: <probe bundle> <cache file>.
import { requireWithCodeCache } from '@fastpath/client-warmup';

const [bundle, cacheFile] = process.argv.slice(2);
if (!bundle || !cacheFile) {
  process.stderr.write('usage: code-cache-runner <bundle.cjs> <cache file>\n');
  process.exitCode = 2;
} else {
  const { cache } = requireWithCodeCache(bundle, { cacheFile });
  process.env['COLD_CLIENT_CODE_CACHE'] = cache;
}
