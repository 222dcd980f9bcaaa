import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig, parseTeamRules } from '../../src/config.js';
import { sandboxTeamConfig } from '../../src/sandbox/team.js';
import { admits } from '../../src/team/allow.js';
import { exited, runCli, startUntilReady } from '../e2e/cli.js';
import { freePort } from './team.js';

const TEAM = { SWITCHBOARD_TEAM: '1', SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com', SWITCHBOARD_TEAM_ALLOW: 'ada@example.com' };

describe('the team switch', () => {
  it('is off unless --team or SWITCHBOARD_TEAM=1 turns it on; accounts add --team names a Vercel team instead', () => {
    expect(loadConfig({}).team).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_TEAM: '0' }).team).toBeUndefined();
    expect(loadConfig({}, { team: 'my-vercel-team' }).team).toBeUndefined();
    expect(loadConfig(TEAM).team).toEqual({ allow: [{ kind: 'address', address: 'ada@example.com' }], admins: [] });
    const { SWITCHBOARD_TEAM: _off, ...withoutSwitch } = TEAM;
    expect(loadConfig(withoutSwitch, { team: true }).team).toBeDefined();
  });

  it.each([
    [{ ...TEAM, SWITCHBOARD_PUBLIC_URL: '' }, /--team needs --public-url \(or SWITCHBOARD_PUBLIC_URL\)/],
    [{ ...TEAM, SWITCHBOARD_PUBLIC_URL: 'https://example.com/switchboard' }, /--team needs SWITCHBOARD_PUBLIC_URL to be an origin .* without a path/],
    [{ ...TEAM, SWITCHBOARD_TEAM_ALLOW: '' }, /--team needs SWITCHBOARD_TEAM_ALLOW: who may sign in/],
    [{ ...TEAM, SWITCHBOARD_TEAM_ALLOW: 'ada@example.com, bob' }, /SWITCHBOARD_TEAM_ALLOW: "bob" is not an address/],
    [{ ...TEAM, SWITCHBOARD_TEAM_ADMINS: 'github-org:' }, /SWITCHBOARD_TEAM_ADMINS: "github-org:" is not/],
    [{ ...TEAM, SWITCHBOARD_TEAM: 'yes' }, /SWITCHBOARD_TEAM must be 1 or 0/],
  ])('refuses an unusable team setting, naming it (%#)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('in sandbox mode needs neither a public URL nor SWITCHBOARD_TEAM_ALLOW, admitting only the sandbox people by default', async () => {
    const team = { SWITCHBOARD_TEAM: '1' };
    expect(loadConfig(team, { sandbox: true }).team).toEqual({ allow: [], admins: [], sandboxPeople: true });
    expect(loadConfig({ ...team, SWITCHBOARD_TEAM_ALLOW: '@example.com' }, { sandbox: true }).team).toEqual({ allow: [{ kind: 'domain', domain: 'example.com' }], admins: [] });
    expect(() => loadConfig({ ...team, SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com' }, { sandbox: true })).toThrow(
      /--team needs SWITCHBOARD_TEAM_ALLOW.*With SWITCHBOARD_TEAM_ISSUER the sandbox cannot vouch for who signs in/,
    );
    expect(() => loadConfig(team)).toThrow(/--team needs --public-url.*switchboard serve --sandbox --http --team/);

    const config = await sandboxTeamConfig(loadConfig(team, { sandbox: true, http: true, port: '0' }));
    const port = new URL(config.http.publicUrl!).port;
    expect(config.http.publicUrl).toBe(`http://127.0.0.1:${port}`);
    expect(config.http.port).toBe(Number(port));
    expect(config.team!.allow).toEqual([
      { kind: 'address', address: 'octocat@sbx.example' },
      { kind: 'address', address: 'avery@contoso.example' },
    ]);
    const who = (emails: string[]) => ({ provider: 'github' as const, subject: '1', login: 'x', emails, memberOf: async () => true });
    expect(await admits(config.team!.allow, who(['octocat@sbx.example']))).toBe(true);
    for (const outsider of ['hubot@sbx.example', 'ada@contoso.example', 'someone@example.com']) expect(await admits(config.team!.allow, who([outsider])), outsider).toBe(false);
    const given = await sandboxTeamConfig(loadConfig(team, { sandbox: true, http: true, port: '9999', 'public-url': 'http://127.0.0.1:9999' }));
    expect(given.http.publicUrl).toBe('http://127.0.0.1:9999');
  });

  it('reads addresses, domains and GitHub organizations, case-insensitively', () => {
    expect(parseTeamRules(' Ada@Example.com ,@Example.org,github-org:Acme-Labs,', 'X')).toEqual([
      { kind: 'address', address: 'ada@example.com' },
      { kind: 'domain', domain: 'example.org' },
      { kind: 'github-org', org: 'acme-labs' },
    ]);
  });
});

describe('switchboard serve --team', () => {
  let dataDir: string | undefined;
  afterEach(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  it('refuses to start over stdio, and without a public URL', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-team-'));
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TEAM_ALLOW: 'ada@example.com' };
    const stdio = await runCli(['serve', '--team', '--public-url', 'https://switchboard.example.com'], { env });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('--team protects MCP over HTTP: add --http.');
    const noUrl = await runCli(['serve', '--http', '--team'], { env });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--team needs --public-url');
  });

  it('serves the metadata and refuses MCP without a token, in sandbox mode signing in at the stand-in providers', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-team-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const served = await startUntilReady(
      ['serve', '--sandbox', '--http', '--team', '--port', String(port), '--public-url', url],
      { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TEAM_ALLOW: '@sbx.example' },
      /"msg":"listening"/,
    );
    try {
      expect(served.stderr()).toMatch(/"msg":"team mode".*"signIn":"github,outlook"/);
      expect(await (await fetch(`${url}/.well-known/oauth-protected-resource`)).json()).toMatchObject({ resource: `${url}/mcp`, authorization_servers: [url] });
      const refused = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`);
    } finally {
      served.child.kill('SIGTERM');
      await exited(served.child);
    }
  });
});
