import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanUp, sqlite } from '../store/adapters.js';
import { until } from '../support/wait.js';
import { startTestIssuer } from './oidc-issuer.js';
import { freePort, startTeamServer } from './team.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await cleanUp();
});

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, { ok: boolean; failed?: string; reason?: string }> } };
};

describe('readiness of the issuer in team mode', () => {
  it('the built-in authorization server is ready once its keys are loaded', async () => {
    const server = await startTeamServer({ sandbox, location: await sqlite.location() });
    try {
      const answer = await readyz(server.url);
      expect(answer.status).toBe(200);
      expect(answer.body.checks.issuer).toEqual({ ok: true });
    } finally {
      await server.close();
    }
  });

  it('an external issuer whose keys cannot be read fails readiness, saying so', async () => {
    const port = await freePort();
    const issuer = await startTestIssuer({ people: { ada: { email: 'ada@example.com' } }, resource: `http://127.0.0.1:${port}/mcp` });
    const server = await startTeamServer({ sandbox, location: await sqlite.location(), port, env: { SWITCHBOARD_TEAM_ISSUER: issuer.url, SWITCHBOARD_TEAM_ALLOW: '@example.com' } });
    try {
      expect(await readyz(server.url)).toMatchObject({ status: 200, body: { checks: { issuer: { ok: true } } } });
      await issuer.close();
      let answer = await readyz(server.url);
      await until(async () => (answer = await readyz(server.url)).status === 503, 'readiness to fail', 15_000);
      expect(answer.body.checks.issuer).toEqual({ ok: false, failed: 'issuer', reason: "the issuer's keys (jwks_uri) are unreachable: access tokens cannot be checked" });
      expect(answer.body.checks.store).toEqual({ ok: true });
    } finally {
      await server.close();
    }
  });
});
