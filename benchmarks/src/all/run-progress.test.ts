import { runProgressState } from './run-progress.js';

const base = {
  index: 1,
  count: 3,
  name: 'kms-http',
  cases: 13,
  fraction: 0,
  scenarioElapsedMs: 0,
  detail: '',
  estimatesMs: [60_000, 120_000, 20_000],
};

describe('the whole-run progress of all', () => {
  it('counts finished scenarios by their estimates and the running one by its own progress', () => {
    const s = runProgressState({
      ...base,
      fraction: 0.5,
      scenarioElapsedMs: 40_000,
      detail: 'rep 1/1 · 90:10',
    });
    expect(s).toEqual({
      label: '[2/3] kms-http · case 7/13',
      done: 60_000 + 60_000,
      total: 200_000,
      // Half done in 40 s: 40 s to go, extrapolated from its own pace.
      detail: 'kms-http 50% · its ETA 0:40 · rep 1/1 · 90:10',
    });
  });

  it('uses the estimate before the scenario has reported anything, and stays within its cases', () => {
    expect(runProgressState({ ...base, scenarioElapsedMs: 5000 })).toMatchObject({
      label: '[2/3] kms-http · case 1/13',
      done: 60_000,
      detail: 'kms-http 0% · its ETA 1:55',
    });
    expect(runProgressState({ ...base, fraction: 1, scenarioElapsedMs: 100_000 })).toMatchObject({
      label: '[2/3] kms-http · case 13/13',
      done: 180_000,
    });
    expect(runProgressState({ ...base, cases: 0, fraction: 2 }).label).toBe('[2/3] kms-http');
  });
});
