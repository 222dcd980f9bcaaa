import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS, SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { exited, startHttpServe } from '../e2e/cli.js';

describe('switchboard serve --sandbox --http serves the Integrations page', () => {
  let child: ChildProcess;
  let base: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-web-cli-'));
    const started = await startHttpServe(['--sandbox'], { SWITCHBOARD_DATA_DIR: dataDir });
    child = started.child;
    base = started.url.replace(/\/mcp$/, '');
  });
  afterAll(async () => {
    child?.kill('SIGTERM');
    if (child) await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers GET / with the page, its policy, and the sample accounts; the sample credentials only in their own panel', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    const body = await res.text();
    for (const provider of ['outlook', 'sales', 'github', 'vercel']) expect(body).toContain(`data-provider="${provider}"`);
    expect(body).toContain('avery@contoso.example');
    // Sandbox mode publishes its public sample values in one panel; no stored account's secret shows anywhere else.
    const panel = /<section class="panel" id="sandbox-credentials"[\s\S]*?<\/section>/.exec(body)![0];
    for (const secret of [...Object.values(SANDBOX_TOKENS), ...Object.values(SANDBOX_API_KEYS)]) {
      expect(panel).toContain(secret);
      expect(body.replace(panel, '')).not.toContain(secret);
    }
    // serve hands the page its browser sign-in, so the pop-up buttons are live.
    expect(body).not.toContain('Pop-up sign-in is not available');
  });

  it('leaves /mcp and unknown paths alone: the page route is exactly /', async () => {
    const mcp = await fetch(`${base}/mcp`);
    expect(mcp.status).toBe(400);
    expect(await mcp.text()).toContain('Mcp-Session-Id');
    expect((await fetch(`${base}/no-such-page`)).status).toBe(404);
  });
});
