// Entry point of `npm run start-group -w @fastpath/ratis-fixture`: starts a group, prints it as
// one JSON line ({"groupId", "peers": [{"id", "address"}], "leaderId", "ratisVersion", "rootDir"})
// and keeps it running until stdin ends or SIGINT/SIGTERM, then stops every peer.
import { startRatisGroup } from './ratis-group.js';

const group = await startRatisGroup();
process.stdout.write(
  `${JSON.stringify({
    groupId: group.groupId,
    peers: group.peers,
    leaderId: await group.leaderId(),
    ratisVersion: group.ratisVersion,
    rootDir: group.rootDir,
  })}\n`,
);
const done = new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
  process.stdin.once('end', resolve);
  process.stdin.resume();
});
await done;
await group.stop();
process.stdin.pause();
