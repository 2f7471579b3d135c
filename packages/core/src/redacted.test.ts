import { inspect } from 'node:util';
import { Redacted } from './redacted.js';

describe('Redacted', () => {
  const secret = 'hunter2-key-material';
  const boxed = new Redacted(secret);

  it('never prints the secret through the usual ways of turning a value into text', () => {
    const renderings = [
      String(boxed),
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- interpolation is one of the ways under test
      `${boxed}`,
      JSON.stringify({ boxed }),
      inspect(boxed),
      inspect({ nested: { boxed } }, { depth: 5 }),
    ];
    for (const text of renderings) {
      expect(text).not.toContain(secret);
      expect(text).toContain('<redacted>');
    }
  });

  it('hands the secret out through unwrap only', () => {
    expect(boxed.unwrap()).toBe(secret);
    expect(Redacted.of(boxed)).toBe(boxed);
    expect(Redacted.of('x').unwrap()).toBe('x');
  });
});
