// `npm run prepare-hadoop -w @fastpath/hadoop-fixture`: resolves the Hadoop jars and compiles the
// client driver (CI runs it before the tests so that their time is not spent downloading).
import { prepareHadoop } from './prepare-hadoop.js';

const installation = await prepareHadoop();
const { resolution } = installation;
process.stdout.write(
  `hadoop ${installation.hadoopVersion}: ${resolution.classpath.length} jars, ` +
    `${(resolution.classpathBytes / 1e6).toFixed(1)} MB on the class path; ` +
    (resolution.maven === 'none'
      ? 'from the cache (Maven did not run)'
      : `Maven ${resolution.maven}: ${resolution.downloads} downloads, ${(resolution.downloadedBytes / 1e6).toFixed(1)} MB`) +
    ` in ${(resolution.durationMs / 1000).toFixed(1)} s\n`,
);
