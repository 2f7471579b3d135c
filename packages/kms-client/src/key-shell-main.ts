// Process entry of the fastpath-key command (bin/fastpath-key.js runs it, through tsx when there
// is no build).
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { runKeyShell } from './key-shell.js';

function loginName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

function readLine(prompt: string): Promise<string | undefined> {
  process.stderr.write(prompt);
  const rl = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      resolve(line);
      rl.close();
    });
    rl.once('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}

runKeyShell(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  readLine,
  defaultUser: loginName(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fastpath-key: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
