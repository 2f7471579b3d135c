// Entry point of `npm run resolve-jars -w @fastpath/ratis-fixture`, the step CI runs before the
// tests: resolves Apache Ratis's jars (printing progress) and compiles the launcher, or exits 1
// naming the artifact Maven Central did not give.
import { MavenResolutionError } from '@fastpath/jvm-fixture';
import { prepareRatisJars } from './ratis-jars.js';

try {
  const jars = await prepareRatisJars();
  const r = jars.report;
  process.stdout.write(
    `ratis-fixture: Apache Ratis ${jars.ratisVersion} ready in ${(r.durationMs / 1000).toFixed(1)} s ` +
      `(Maven: ${r.maven}, ${r.downloads} files / ${(r.downloadedBytes / 1e6).toFixed(1)} MB downloaded; ` +
      `${r.jarCount} jars, ${(r.jarBytes / 1e6).toFixed(1)} MB; launcher ${r.compiled ? 'compiled' : 'up to date'})\n`,
  );
} catch (err) {
  if (err instanceof MavenResolutionError) {
    process.stderr.write(
      `ratis-fixture: Maven could not resolve ${err.artifact ?? 'an artifact (see below)'}\n${err.message}\n${err.outputTail}\n`,
    );
  } else {
    process.stderr.write(`ratis-fixture: ${(err as Error).message}\n`);
  }
  process.exitCode = 1;
}
