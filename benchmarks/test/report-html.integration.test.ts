import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDebianPackages } from '@fastpath/jvm-fixture';
import { chromium, type BrowserContext } from 'playwright-core';
import { writeRunReport } from '../src/all/write-run-report.js';
import { registry } from '../src/scenarios/index.js';
import { writeFixtureRun } from './fixtures/real-scenario-results.js';

// The HTML report opened in a real headless Chromium (Debian's `chromium` package, installed here
// when missing and the test runs as root with apt-get, as every fixture does; .ci/run installs it
// up front): it renders, every chart is drawn with a size on the page, and every link resolves.
// The fixture folder stays under benchmarks/results/ (git-ignored) with the screenshot in it.
const CHROMIUM = '/usr/bin/chromium';
const RESULTS = path.resolve('results', 'report-html-test');
const LAUNCH_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let context: BrowserContext;
let profile: string;
beforeAll(async () => {
  await ensureDebianPackages([{ file: CHROMIUM, debianPackage: 'chromium' }], {
    purpose: "the report test's browser",
  });
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  profile = mkdtempSync(path.join(tmpdir(), 'bench-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: LAUNCH_FLAGS,
  });
}, 600_000);
afterAll(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
});

describe('report.html in headless Chromium', () => {
  it('renders from disk with every chart visible and no broken link', async () => {
    await writeFixtureRun(RESULTS, { statuses: { 'cold-client': 'failed' } });
    const { htmlPath, report } = writeRunReport(RESULTS, registry);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText ?? 'failed'}`));
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });

    expect(await page.title()).toBe('fastpath benchmarks: INCOMPLETE report');
    expect(await page.locator('h2[id^="scenario-"]').count()).toBe(registry.length);
    expect(await page.locator('#summary-table tbody tr').count()).toBe(registry.length);

    const charts = page.locator('figure.chart svg');
    expect(await charts.count()).toBe(report.sections.reduce((n, s) => n + s.charts.length, 0));
    for (let i = 0; i < (await charts.count()); i++) {
      const chart = charts.nth(i);
      await chart.scrollIntoViewIfNeeded();
      expect(await chart.isVisible()).toBe(true);
      const box = await chart.boundingBox();
      expect(box && box.width > 200 && box.height > 100).toBe(true);
      // Drawn, not an empty frame: bars and labels inside.
      expect(await chart.locator('rect').count()).toBeGreaterThan(1);
      expect(await chart.locator('text').count()).toBeGreaterThan(1);
    }

    // Read through the locator API: the test has no DOM types, and needs none.
    const anchors = page.locator('a[href]');
    const links: string[] = [];
    for (let i = 0; i < (await anchors.count()); i++)
      links.push((await anchors.nth(i).getAttribute('href')) ?? '');
    expect(links.length).toBeGreaterThan(registry.length * 2);
    for (const href of links) {
      if (href.startsWith('#')) {
        expect({ href, found: await page.locator(`[id="${href.slice(1)}"]`).count() }).toEqual({
          href,
          found: 1,
        });
      } else {
        expect(href).not.toMatch(/^[a-z]+:/);
        const target = path.join(RESULTS, decodeURI(href));
        expect({ href, exists: existsSync(target) }).toEqual({ href, exists: true });
      }
    }
    expect(problems).toEqual([]);

    await page.screenshot({ path: path.join(RESULTS, 'report-screenshot.png'), fullPage: true });
    expect(existsSync(path.join(RESULTS, 'report-screenshot.png'))).toBe(true);
    await page.close();
  }, 120_000);
});
