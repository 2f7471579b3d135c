import { describe, expect, it } from '@jest/globals';
import { loadNote, runLoadNote } from './load-note.js';

describe('load notes', () => {
  it('calls a machine loaded beyond half a core of load per core', () => {
    expect(loadNote([1.01, 0.5, 0.2], 2).loaded).toBe(true);
    expect(loadNote([1.0, 3, 3], 2).loaded).toBe(false);
    expect(loadNote([1.01, 0.5, 0.2], 2).line).toMatch(
      /^\*\*Taken under load\*\*: load average 1\.01 \/ 0\.50 \/ 0\.20/,
    );
  });

  it("judges a run by its start only: the end's load is the run's own work", () => {
    const quiet = runLoadNote([0.3, 1, 2], [6.35, 5.49, 4.24], 2);
    expect(quiet.loaded).toBe(false);
    expect(quiet.line).toBe(
      "Load average 0.30 / 1.00 / 2.00 (1/5/15 min) at the start on 2 cores. At the end 6.35 / 5.49 / 4.24, the run's own cluster and clients included.",
    );
    const busy = runLoadNote([1.5, 1, 1], [0.1, 0.1, 0.1], 2);
    expect(busy.loaded).toBe(true);
    expect(busy.line).toMatch(
      /^\*\*Taken under load\*\*: load average 1\.50 \/ 1\.00 \/ 1\.00 \(1\/5\/15 min\) at the start/,
    );
  });
});
