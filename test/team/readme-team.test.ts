import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYONE } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { commandLines, shellBlocks, SWITCHBOARD } from '../docs/markdown.js';
import { watchMisses } from '../support/misses.js';
import { cleanUp, openAt, sqlite } from '../store/adapters.js';
import { startTestIssuer } from './oidc-issuer.js';
import { INITIALIZE, post } from './team.js';

/**
 * The shell blocks of docs/team.md, run as written through bash, `switchboard` being the built CLI. Only what stands
 * for the reader's own is put in: the data directory and port (through the environment), and the external issuer's
 * URL (the tests' stand-in issuer).
 */
const PUBLIC_URL = 'https://switchboard.example.com';
const commands = commandLines;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await cleanUp();
});

/** Runs a `serve` block (the whole script, in one shell) and resolves with the address it listens at once it says so. */
async function serveBlock(script: string, env: Record<string, string>): Promise<{ url: string; stderr: () => string }> {
  // Its own process group, so that the server, a child of the shell, is stopped with it.
  const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${script}`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  watchMisses(child.stderr);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  closers.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(-child.pid!, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 20 s:\n${stderr}`)), 20_000);
    child.stderr.on('data', () => {
      const listening = /"mcp":"(http:\/\/127\.0\.0\.1:\d+)\/mcp"/.exec(stderr);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}:\n${stderr}`));
    });
  });
  return { url, stderr: () => stderr };
}

const json = async (res: Response) => {
  expect(res.status, res.url).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

describe('docs/team.md: people sign in', () => {
  it('starts as written (the data directory and a free port given through the environment) and answers as an OAuth protected resource', { timeout: 60_000 }, async () => {
    const [block] = shellBlocks('docs/team.md', '## People sign in');
    expect(block).toContain('switchboard serve --http --team --public-url https://switchboard.example.com');
    const { dataDir } = await sqlite.location();
    const { url, stderr } = await serveBlock(block!, { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_PORT: '0' });
    expect(stderr()).toMatch(/"msg":"team mode","issuer":"https:\/\/switchboard\.example\.com","resource":"https:\/\/switchboard\.example\.com\/mcp","signIn":"github"/);

    const metadata = await json(await fetch(`${url}/.well-known/oauth-protected-resource`));
    expect(metadata).toMatchObject({ resource: `${PUBLIC_URL}/mcp`, authorization_servers: [PUBLIC_URL], scopes_supported: ['switchboard', 'switchboard:read'] });
    expect(await json(await fetch(`${url}/.well-known/oauth-protected-resource/mcp`))).toEqual(metadata);

    const refused = await post(url, INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="https:\/\/switchboard\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"$/);

    const server = await json(await fetch(`${url}/.well-known/oauth-authorization-server`));
    expect(server).toMatchObject({ issuer: PUBLIC_URL, authorization_endpoint: `${PUBLIC_URL}/auth/authorize`, token_endpoint: `${PUBLIC_URL}/auth/token` });
    expect(server.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('shares the operator\'s account and takes it back as written', async () => {
    const [block] = shellBlocks('docs/team.md', "## Each person's own");
    const lines = commands(block!);
    expect(lines).toHaveLength(3);
    const location = await sqlite.location();
    const store = await openAt(location, { secretKey: 'readme key' });
    const ada = await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: 'ada@example.com' });
    const bot = await store.accounts.add({ provider: 'github', label: 'github-bot', secret: { kind: 'token', token: 'ghp_readme_bot_token' } });
    const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'readme key' };
    const grantees = async () => (await store.accounts.grants()).filter((g) => g.accountId === bot.id).map((g) => g.grantee);
    const expected = [[ada.id], [ada.id, EVERYONE], [ada.id]];
    const said = [`Shared github account "github-bot" with ada (${ada.id})`, 'Shared github account "github-bot" with everyone on the team', 'github account "github-bot" is no longer shared with everyone on the team'];
    for (const [i, line] of lines.entries()) {
      const run = spawnSync('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env, encoding: 'utf8', timeout: 20_000 });
      expect(run.status, `${line}\n${run.stderr}`).toBe(0);
      expect(run.stdout, line).toContain(said[i]);
      expect((await grantees()).sort(), line).toEqual(expected[i]!.sort());
    }
    // Ada may use it; it is still the operator's.
    expect((await store.ownedBy(ada.id).accounts.list()).map((a) => [a.label, a.shared])).toEqual([['github-bot', true]]);
  });

  it("runs the operator's view as written on a store where ada signed in", async () => {
    const [, block] = shellBlocks('docs/team.md', "## Each person's own");
    const lines = commands(block!);
    expect(lines.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
      'switchboard users list',
      'switchboard users show',
      'switchboard users disable',
      'switchboard users enable',
      'switchboard users remove',
      'switchboard tokens list',
    ]);
    const location = await sqlite.location();
    const store = await openAt(location, { secretKey: 'readme key' });
    const ada = await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: 'ada@example.com' });
    const bob = await store.team.users.signIn({ provider: 'outlook', subject: 'b-2', login: 'bob@example.com', email: 'bob@example.com' });
    const bot = await store.accounts.add({ provider: 'github', label: 'github-bot', secret: { kind: 'token', token: 'ghp_readme_bot_token' } });
    await store.accounts.share(bot.id, ada.id);
    await store.ownedBy(ada.id).accounts.add({ provider: 'github', label: 'ada-work', secret: { kind: 'token', token: 'ghp_readme_ada_token' } });
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const adas = await store.team.tokens.create({ owner: ada.id, name: 'nightly triage', scope: 'switchboard:read', tokenHash: newPersonalToken().hash, expiresAt });
    const bobs = await store.team.tokens.create({ owner: bob.id, name: 'ci step', scope: 'switchboard', tokenHash: newPersonalToken().hash, expiresAt });
    const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'readme key' };

    const outputs: string[] = [];
    const effects: Array<() => Promise<void>> = [
      async () => expect(outputs[0]).toMatch(new RegExp(`ada +ada@example.com +GitHub +admin +active .*${ada.id}`)),
      async () => {
        expect(outputs[1]).toMatch(/^ada <ada@example.com>, admin/);
        expect(outputs[1]).toMatch(/Accounts:\n +github +ada-work/);
        expect(outputs[1]).toMatch(/Shared with them:\n +github +github-bot/);
        expect(outputs[1]).not.toContain('ghp_');
      },
      async () => {
        expect((await store.team.users.get(ada.id))?.disabled).toBe(true);
        expect((await store.team.tokens.get(adas.id))?.revokedAt).toEqual(expect.any(String));
      },
      async () => {
        expect((await store.team.users.get(ada.id))?.disabled).toBe(false);
        expect((await store.team.tokens.get(adas.id))?.revokedAt).toEqual(expect.any(String));
      },
      async () => {
        expect(await store.team.users.get(ada.id)).toBeUndefined();
        expect(await store.team.tokens.get(adas.id)).toBeUndefined();
        expect(await store.accounts.grants()).toEqual([]);
        expect((await store.accounts.list()).map((a) => a.label)).toEqual(['github-bot']);
      },
      async () => {
        expect(outputs[5]).toMatch(new RegExp(`${bobs.id} +ci step +bob@example.com +switchboard +active`));
        expect(outputs[5]).not.toContain(adas.id);
      },
    ];
    for (const [i, line] of lines.entries()) {
      const run = spawnSync('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env, encoding: 'utf8', timeout: 20_000 });
      expect(run.status, `${line}\n${run.stderr}`).toBe(0);
      outputs.push(run.stdout);
      await effects[i]!();
    }
  });
});

describe('docs/team.md: an external OpenID Connect issuer', () => {
  it('starts as written against the stand-in issuer, names it as the authorization server, and signs people in to the page there', { timeout: 60_000 }, async () => {
    const [serve, client] = shellBlocks('docs/team.md', '## An external OpenID Connect issuer');
    const example = 'https://login.example.com/realms/team';
    expect(serve).toContain(`SWITCHBOARD_TEAM_ISSUER=${example} `);
    const issuer = await startTestIssuer({ people: {}, resource: `${PUBLIC_URL}/mcp` });
    closers.push(() => issuer.close());
    const discovery = await json(await fetch(`${issuer.url}/.well-known/openid-configuration`));
    // The page's client is set in the same shell, before the server starts.
    const { dataDir } = await sqlite.location();
    const { url } = await serveBlock(`${client}\n${serve!.replace(example, issuer.url)}`, { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_PORT: '0' });

    expect(await json(await fetch(`${url}/.well-known/oauth-protected-resource`))).toMatchObject({ resource: `${PUBLIC_URL}/mcp`, authorization_servers: [issuer.url] });
    expect((await fetch(`${url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    const refused = await post(url, INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`);

    const signIn = await fetch(`${url}/auth/page/oidc`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const at = new URL(signIn.headers.get('location')!);
    expect(`${at.origin}${at.pathname}`).toBe(discovery.authorization_endpoint);
    expect(Object.fromEntries(at.searchParams)).toMatchObject({
      client_id: 'switchboard-page',
      redirect_uri: `${PUBLIC_URL}/oauth/callback/oidc/sign-in`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
  });
});
