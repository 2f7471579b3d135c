import { histogramMean, parsePrometheusText, total } from './prometheus-text.js';

const before = parsePrometheusText(`# HELP x help
# TYPE x histogram
token_manager_create_persist_seconds_sum{manager="a"} 1
token_manager_create_persist_seconds_count{manager="a"} 10
kms_requests_total{op="GET_METADATA",status="200"} 5
`);
const after = parsePrometheusText(`token_manager_create_persist_seconds_sum{manager="a"} 3
token_manager_create_persist_seconds_count{manager="a"} 20
kms_requests_total{op="GET_METADATA",status="200"} 105
kms_requests_total{op="GET_METADATA",status="403"} 2
weird_label{a="x\\"y"} 1.5e-3
`);

describe('Prometheus text', () => {
  it('parses names, labels (with escapes) and values', () => {
    expect(after.at(-1)).toEqual({ name: 'weird_label', labels: { a: 'x"y' }, value: 0.0015 });
    expect(total(after, 'kms_requests_total')).toBe(107);
    expect(total(after, 'kms_requests_total', { status: '200' })).toBe(105);
  });

  it('takes histogram means over a window between two scrapes', () => {
    expect(histogramMean(after, 'token_manager_create_persist_seconds')).toBeCloseTo(0.15, 9);
    expect(histogramMean(after, 'token_manager_create_persist_seconds', {}, before)).toBeCloseTo(0.2, 9);
    expect(histogramMean(after, 'missing_seconds')).toBeNull();
  });
});
