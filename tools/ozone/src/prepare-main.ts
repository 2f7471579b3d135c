// Entry point of `npm run resolve-jars -w @fastpath/ozone-fixture`, the step CI runs on a fresh
// machine: resolves Apache Ozone's jars (printing progress) and compiles the launcher, or exits 1
// naming the artifact Maven Central did not give.
import { MavenResolutionError } from '@fastpath/jvm-fixture';
import { prepareOzoneJars } from './ozone-jars.js';

try {
  const jars = await prepareOzoneJars();
  const r = jars.report;
  process.stdout.write(
    `ozone-fixture: Apache Ozone ${jars.ozoneVersion} ready in ${(r.durationMs / 1000).toFixed(1)} s ` +
      `(Maven: ${r.maven}, ${r.downloads} files / ${(r.downloadedBytes / 1e6).toFixed(1)} MB downloaded; ` +
      `${r.jars} jars, ${(r.jarBytes / 1e6).toFixed(1)} MB; launcher ${r.compiled ? 'compiled' : 'up to date'})\n`,
  );
} catch (err) {
  if (err instanceof MavenResolutionError) {
    process.stderr.write(
      `ozone-fixture: Maven could not resolve ${err.artifact ?? 'an artifact (see below)'}\n${err.message}\n${err.outputTail}\n`,
    );
  } else {
    process.stderr.write(`ozone-fixture: ${(err as Error).message}\n`);
  }
  process.exitCode = 1;
}
