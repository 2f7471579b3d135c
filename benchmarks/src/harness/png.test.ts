import { existsSync } from 'node:fs';
import { barChartSvg } from './bar-chart.js';
import { DEFAULT_FONT_FILES, renderPng } from './png.js';

const svg = barChartSvg({ title: 't', categories: ['a'], series: [{ name: 's', points: [1] }], yLabel: 'y' });

describe('renderPng', () => {
  it('skips with a reason instead of drawing text without fonts', async () => {
    const result = await renderPng(svg, { fontFiles: ['/nonexistent/font.ttf'] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/no font file found.*nonexistent/);
  });

  it('renders a PNG of twice the SVG width with the system fonts, or says which are missing', async () => {
    const result = await renderPng(svg);
    if (DEFAULT_FONT_FILES.some((f) => existsSync(f))) {
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(result.png.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect(result.png.readUInt32BE(16)).toBe(1920); // IHDR width
      }
    } else {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(/no font file found/);
    }
  });
});
