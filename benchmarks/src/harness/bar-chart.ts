import { formatSi } from './format.js';
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

/**
 * A grouped bar chart as an SVG document: one group per category, one bar per series, a min-max
 * whisker where a point has a range, value labels, axis label, title and legend.
 *
 * @example
 * ```ts
 * const svg = barChartSvg({
 *   title: 'Lock acquire/release',
 *   categories: ['uncontended', 'contended'],
 *   series: [{ name: 'Mutex', points: [{ value: 2.1e6, min: 1.9e6, max: 2.3e6 }, 1.1e6] }],
 *   yLabel: 'ops/s',
 * });
 * ```
 */
export function barChartSvg(spec: ChartSpec): string {
  checkSpec(spec);
  const withFormat: ChartSpec = { ...spec, formatValue: spec.formatValue ?? formatSi };
  const format = withFormat.formatValue!;
  const frame = layoutFrame(withFormat, collectValues(withFormat));
  const out = drawFrame(withFormat, frame);
  const { plotLeft, plotRight, scale } = frame;
  const band = (plotRight - plotLeft) / spec.categories.length;
  const groupWidth = band * 0.8;
  const barWidth = groupWidth / spec.series.length;
  const narrow = barWidth < 34;
  const showValues = spec.valueLabels ?? true;
  out.push('<g class="bars">');
  spec.series.forEach((series, si) => {
    const color = seriesColor(withFormat, si);
    spec.categories.forEach((category, ci) => {
      const p = normalisePoint(series.points[ci]);
      if (!p) return;
      const x = plotLeft + band * ci + (band - groupWidth) / 2 + barWidth * si;
      const yTop = scale.y(p.value);
      const yBase = scale.y(scale.floor);
      const range = p.min !== undefined && p.max !== undefined ? ` (${format(p.min)}–${format(p.max)})` : '';
      out.push(
        `<rect class="bar" data-series="${escapeXml(series.name)}" data-category="${escapeXml(category)}" x="${num(x + 1)}" y="${num(Math.min(yTop, yBase))}" width="${num(Math.max(1, barWidth - 2))}" height="${num(Math.abs(yBase - yTop))}" fill="${color}"><title>${escapeXml(`${series.name} · ${category}: ${format(p.value)}${range}`)}</title></rect>`,
      );
      const cx = x + barWidth / 2;
      let labelY = yTop;
      if (p.min !== undefined && p.max !== undefined) {
        const yMax = scale.y(p.max);
        out.push(drawWhisker(cx, scale.y(p.min), yMax, Math.min(12, barWidth * 0.5)));
        labelY = Math.min(labelY, yMax);
      }
      if (showValues) out.push(valueLabel(cx, labelY, format(p.value), narrow));
    });
  });
  out.push('</g>', ...drawReferenceLine(withFormat, frame), '</svg>');
  return `${out.join('\n')}\n`;
}
