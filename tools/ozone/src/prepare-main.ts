// Entry point of `npm run resolve-jars -w @fastpath/ozone-fixture`, the step CI runs on a fresh
// machine: resolves Apache Ozone's jars (printing progress) and compiles the launcher, or exits 1
// naming the artifact Maven Central did not give.
import { OzoneJarsUnavailableError } from './ozone-fixture-errors.js';
import { prepareOzoneJars } from './ozone-jars.js';

try {
  const jars = await prepareOzoneJars();
  const r = jars.report;
  process.stdout.write(
    `ozone-fixture: Apache Ozone ${jars.ozoneVersion} ready (${r.resolution}; ${r.libFiles} jars, ` +
      `${(r.libBytes / 1e6).toFixed(1)} MB; launcher ${r.compiled ? 'compiled' : 'up to date'}) ` +
      `in ${(r.totalMs / 1000).toFixed(1)} s\n`,
  );
} catch (err) {
  if (err instanceof OzoneJarsUnavailableError) {
    process.stderr.write(
      `ozone-fixture: Maven could not resolve ${err.artifact ?? 'an artifact (see below)'}\n${err.message}\n`,
    );
  } else {
    process.stderr.write(`ozone-fixture: ${(err as Error).message}\n`);
  }
  process.exitCode = 1;
}
