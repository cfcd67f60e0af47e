import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Headless Chromium for the tests that open the service's pages as a person does: Debian's
 * `chromium` (scripts/ensure-chromium.sh installs it with `npm install`), driven by playwright-core.
 * Each page opened through `watchPage` records what a reader of the page would never see but a
 * tester must: every Content-Security-Policy violation (the policy blocked something the page
 * needs), every request that left the service's own origin, every script error and every console
 * error. `expectCleanPage` then holds the page to none of them.
 */
const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = candidates.find((candidate): candidate is string => Boolean(candidate) && existsSync(candidate!));
  if (!found) {
    throw new Error(
      'The browser tests need Chromium and none was found (CHROMIUM_PATH, /usr/bin/chromium). `npm install` installs ' +
        "Debian's chromium package when it runs as root on Debian (scripts/ensure-chromium.sh); otherwise install it " +
        '(sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  }
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // This machine's network is closed: without these Chromium tries Google's hosts at every start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export interface PageWatch {
  page: Page;
  /** CSP violations seen by the document: `directive blocked-uri`. */
  violations: () => Promise<string[]>;
  /** Requests to any origin but the service's. */
  foreignRequests: string[];
  /** Uncaught script errors and console errors. */
  errors: string[];
}

/** A new page in `context` that records violations, foreign requests and errors (see the module note). */
export async function watchPage(context: BrowserContext, origin: string): Promise<PageWatch> {
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  const errors: string[] = [];
  // Registered through the DevTools protocol before any of the page's own code, so the page's CSP
  // does not apply to it: it sees the violations the policy reports.
  await page.addInitScript({
    content: "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (event) => window.__cspViolations.push(event.effectiveDirective + ' ' + event.blockedURI));",
  });
  page.on('request', (request) => {
    const url = request.url();
    if (/^(data|blob|about):/.test(url)) return;
    if (new URL(url).origin !== origin) foreignRequests.push(url);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A document's own error status (a 410 page for a used link) is the page working as meant;
    // the console reports it as a failed load. A sub-resource that fails is caught below.
    if (message.type() !== 'error' || (message.text().startsWith('Failed to load resource') && message.location().url === page.url())) return;
    errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.request().isNavigationRequest()) errors.push(`${response.status()} ${response.url()}`);
  });
  const violations = async () => {
    return page.evaluate<string[]>('window.__cspViolations ?? []');
  };
  return { page, violations, foreignRequests, errors };
}

/**
 * Serious and critical axe-core findings on the page as it is now, one line each; within `include`
 * (CSS selectors) where the page is too large to check whole in a test's time.
 */
export async function accessibilityFindings(page: Page, include: readonly string[] = []): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  for (const selector of include) builder.include(selector);
  const results = await builder.analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/**
 * Where screenshots go: `test-results/screenshots` in a test run, `docs/screenshots` (which the
 * README shows) with `npm run screenshots`.
 */
export function screenshotPath(name: string): string {
  const directory = path.resolve(import.meta.dirname, '../..', process.env.SCREENSHOTS_DIR ?? 'test-results/screenshots');
  mkdirSync(directory, { recursive: true });
  return path.join(directory, `${name}.png`);
}
