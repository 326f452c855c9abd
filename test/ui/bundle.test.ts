/**
 * The built web UI (dist/ui) as shipped (issue 18): the JavaScript a first visit loads —
 * the scripts and module preloads `index.html` names — is at most 150 KB gzipped (issue 31's
 * budget; CodeMirror is a separate chunk loaded by the editors, uPlot one loaded by the
 * overview's charts); nothing is
 * fetched from another origin; no inline script. Writes the figure to
 * test-results/ui/initial-js-gzip-bytes.txt for BENCHMARKS.md.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { BUILT_UI_DIR } from '../../src/kernel/http/index.js';
import { SHOTS } from './harness.js';

/** Issue 31's budget for the initial JavaScript, gzipped, in bytes. */
const BUDGET = 150 * 1024;

describe('the built web UI', () => {
  const html = readFileSync(join(BUILT_UI_DIR, 'index.html'), 'utf8');

  it('loads at most 150 KB of gzipped JavaScript at first', () => {
    const scripts = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="\/ui\/([^"]+\.js)"/g)].map((m) => m[1]);
    assert.ok(scripts.length > 0, 'index.html names no script');
    const bytes = scripts.reduce((n, f) => n + gzipSync(readFileSync(join(BUILT_UI_DIR, f)), { level: 9 }).length, 0);
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(join(SHOTS, 'initial-js-gzip-bytes.txt'), `${bytes}\n`);
    assert.ok(bytes <= BUDGET, `initial JavaScript is ${bytes} bytes gzipped, over ${BUDGET}`);
    // The editor is not part of it.
    assert.ok(!scripts.some((f) => f.includes('CodeEditor')), scripts.join(', '));
    assert.ok(readdirSync(join(BUILT_UI_DIR, 'assets')).some((f) => f.startsWith('CodeEditor-')));
    // Nor are the charts.
    assert.ok(!scripts.some((f) => f.includes('TrafficCharts')), scripts.join(', '));
    assert.ok(readdirSync(join(BUILT_UI_DIR, 'assets')).some((f) => f.startsWith('TrafficCharts-')));
  });

  it('names no other origin and has no inline script', () => {
    for (const f of readdirSync(join(BUILT_UI_DIR, 'assets')).filter((n) => n.endsWith('.css'))) {
      assert.doesNotMatch(readFileSync(join(BUILT_UI_DIR, 'assets', f), 'utf8'), /url\(\s*['"]?(https?:)?\/\//, f);
    }
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
  });
});
