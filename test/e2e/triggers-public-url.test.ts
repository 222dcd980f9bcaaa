import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-public-url-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github };
  const added = await runCli(['accounts', 'add', 'github', '--token-stdin'], { env, stdin: SANDBOX_TOKENS.github });
  expect(added.code, added.stderr).toBe(0);
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const hookUrls = () =>
  sandbox.servers.github.requests.filter((r) => r.method === 'POST' && /\/hooks$/.test(r.path)).map((r) => String(r.body?.config?.url));

describe('triggers add with a public URL', () => {
  it('creates the webhook at the provider with --public-url, and with SWITCHBOARD_PUBLIC_URL', async () => {
    const withoutUrl = await runCli(['triggers', 'add', 'github.new_issue', '--config', '{"repo":"sbx-octocat/hello-world"}'], { env });
    expect(withoutUrl.code).toBe(2);
    expect(withoutUrl.stderr).toMatch(/public URL/);

    const flag = await runCli(['triggers', 'add', 'github.new_issue', '--config', '{"repo":"sbx-octocat/hello-world"}', '--public-url', 'https://hooks.example.net'], { env });
    expect(flag.code, flag.stderr).toBe(0);
    expect(hookUrls().at(-1)).toMatch(/^https:\/\/hooks\.example\.net\/webhooks\/github\//);

    const fromEnv = await runCli(['triggers', 'add', 'github.new_fork', '--config', '{"repo":"sbx-octocat/private-notes"}'], {
      env: { ...env, SWITCHBOARD_PUBLIC_URL: 'https://env.example.net' },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(hookUrls().at(-1)).toMatch(/^https:\/\/env\.example\.net\/webhooks\/github\//);
  });
});
