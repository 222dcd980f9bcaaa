import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricsOnMainListener } from '../../src/http/metrics-route.js';
import { freePort } from '../team/team.js';
import { exited, startHttpServe } from '../e2e/cli.js';
import { sample, scrape } from './prometheus.js';

describe('where /metrics is served', () => {
  it('on a port of its own on 127.0.0.1 with SWITCHBOARD_METRICS_PORT, and then not on the main listener', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-metrics-port-'));
    const port = await freePort();
    const { child, url } = await startHttpServe(['--sandbox'], { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_METRICS_PORT: String(port) });
    try {
      const base = url.replace(/\/mcp$/, '');
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      const families = await scrape(`http://127.0.0.1:${port}`);
      expect(sample(families, 'target_info', { service_name: 'switchboard' })).toBe(1);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is refused on a listener others can reach without a token, naming the two fixes', () => {
    expect(metricsOnMainListener({ host: '127.0.0.1' })).toBe(true);
    expect(metricsOnMainListener({ host: '0.0.0.0', token: 'a-long-token' })).toBe(true);
    expect(metricsOnMainListener({ host: '0.0.0.0', metricsPort: 9464 })).toBe(false);
    expect(() => metricsOnMainListener({ host: '0.0.0.0' })).toThrow(/set SWITCHBOARD_HTTP_TOKEN .*or SWITCHBOARD_METRICS_PORT to serve \/metrics on 127\.0\.0\.1 at that port\./);
  });
});
