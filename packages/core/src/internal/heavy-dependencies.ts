// The two dependencies that make up most of this package's load time, loaded on first use.
// Modules that need their values call these; their types come from `import type`, which costs
// nothing at run time.
import type * as PromClient from 'prom-client';
import type * as HdrHistogram from 'hdr-histogram-js';
// Outside src/ so that it reaches dist/'s sibling unchanged however the package is compiled:
// `../../commonjs/` is the same folder from src/internal/ and from dist/internal/.
import packageRequire from '../../commonjs/package-require.cjs';

let promClientModule: typeof PromClient | undefined;
let hdrHistogramModule: typeof HdrHistogram | undefined;

/** prom-client, loaded the first time a metrics registry is created. */
export function promClient(): typeof PromClient {
  return (promClientModule ??= packageRequire('prom-client') as typeof PromClient);
}

/** hdr-histogram-js, loaded the first time a latency recorder is created or decoded. */
export function hdrHistogram(): typeof HdrHistogram {
  return (hdrHistogramModule ??= packageRequire('hdr-histogram-js') as typeof HdrHistogram);
}
