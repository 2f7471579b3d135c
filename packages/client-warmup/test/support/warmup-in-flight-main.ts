// A process that starts a warm-up whose first step waits on a promise nothing settles, with
// another step queued behind it, and then finishes its own work once that step is running: on a
// loaded machine the process can start so slowly that a fixed 50 ms timer fires before the
// warm-up's first immediate, so the state is waited on (the test's guard bounds the wait).
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
const finish = (): void => {
  if (handle.state('never-settles') === 'pending') {
    setTimeout(finish, 5);
    return;
  }
  process.stdout.write(`main done, warm-up step is ${handle.state('never-settles')}\n`);
};
setTimeout(finish, 50);
