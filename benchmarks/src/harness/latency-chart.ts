import { barChartSvg } from './bar-chart.js';
import { formatMs } from './format.js';
import {
  checkSpec,
  collectValues,
  drawFrame,
  drawReferenceLine,
  drawWhisker,
  escapeXml,
  layoutFrame,
  normalisePoint,
  num,
  seriesColor,
  valueLabel,
  type ChartSpec,
} from './svg-chart-frame.js';

/** A {@link ChartSpec} for latencies in milliseconds, drawn as lines (the default) or grouped bars. */
export interface LatencyChartSpec extends ChartSpec {
  style?: 'line' | 'bar';
}

/**
 * A latency chart as an SVG document: x categories (percentiles, mixes, load levels), one line or
 * bar series per variant, values in milliseconds printed as µs/ms/s, optional min-max whiskers.
 *
 * @example
 * ```ts
 * const svg = latencyChartSvg({
 *   title: 'Verify p99 by mix',
 *   categories: ['100:0', '95:5', '90:10'],
 *   series: [{ name: 'fixed', points: [0.8, 0.9, 1.1] }, { name: 'original', points: [0.9, 2.5, 6.1] }],
 *   yLabel: 'p99 latency',
 * });
 * ```
 */
export function latencyChartSvg(spec: LatencyChartSpec): string {
  const withFormat: LatencyChartSpec = { ...spec, formatValue: spec.formatValue ?? formatMs };
  if ((spec.style ?? 'line') === 'bar') return barChartSvg(withFormat);
  checkSpec(withFormat);
  const format = withFormat.formatValue!;
  const frame = layoutFrame(withFormat, collectValues(withFormat));
  const out = drawFrame(withFormat, frame);
  const { plotLeft, plotRight, scale } = frame;
  const band = (plotRight - plotLeft) / spec.categories.length;
  const showValues = spec.valueLabels ?? spec.series.length <= 3;
  out.push('<g class="lines">');
  spec.series.forEach((series, si) => {
    const color = seriesColor(withFormat, si);
    const segments: string[][] = [[]];
    const marks: string[] = [];
    spec.categories.forEach((category, ci) => {
      const p = normalisePoint(series.points[ci]);
      if (!p) {
        segments.push([]);
        return;
      }
      const x = plotLeft + band * (ci + 0.5);
      const y = scale.y(p.value);
      segments[segments.length - 1]!.push(`${num(x)},${num(y)}`);
      let labelY = y - 4;
      if (p.min !== undefined && p.max !== undefined) {
        marks.push(drawWhisker(x, scale.y(p.min), scale.y(p.max), 10));
        labelY = Math.min(labelY, scale.y(p.max));
      }
      marks.push(
        `<circle class="point" data-series="${escapeXml(series.name)}" data-category="${escapeXml(category)}" cx="${num(x)}" cy="${num(y)}" r="4" fill="${color}"><title>${escapeXml(`${series.name} · ${category}: ${format(p.value)}`)}</title></circle>`,
      );
      if (showValues)
        marks.push(valueLabel(x + 8 * (si - (spec.series.length - 1) / 2), labelY, format(p.value), false));
    });
    for (const seg of segments) {
      if (seg.length > 1) {
        out.push(
          `<polyline class="line" data-series="${escapeXml(series.name)}" points="${seg.join(' ')}" fill="none" stroke="${color}" stroke-width="2.2"/>`,
        );
      }
    }
    out.push(...marks);
  });
  out.push('</g>', ...drawReferenceLine(withFormat, frame), '</svg>');
  return `${out.join('\n')}\n`;
}
