// A process that starts a warm-up whose first step waits on a promise nothing settles, with
// another step queued behind it, and then finishes its own work after 50 ms.
import { startWarmup } from '@fastpath/client-warmup';

const handle = startWarmup({
  steps: [
    {
      name: 'never-settles',
      run: () => {
        process.stdout.write('step started\n');
        return new Promise(() => {});
      },
    },
    { name: 'queued', run: () => process.stdout.write('queued step ran\n') },
  ],
});
setTimeout(() => {
  process.stdout.write(`main done, warm-up step is ${handle.state('never-settles')}\n`);
}, 50);
