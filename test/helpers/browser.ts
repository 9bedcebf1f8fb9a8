import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

// Debian's Chromium driven by playwright-core (never a browser download).

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => !!p,
);

/** The Chromium to drive, or why the browser tests cannot run here. */
export function findChromium(): { path: string } | { missing: string } {
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  if (found) return { path: found };
  return {
    missing: `no Chromium at ${CANDIDATES.join(' or ')} (install it with: apt-get install -y chromium, or set CHROMIUM_PATH)`,
  };
}

export async function launchChromium(path: string): Promise<Browser> {
  return chromium.launch({
    executablePath: path,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core run in the page: the serious and critical violations (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the driver, so the page's Content-Security-Policy stays as served.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
