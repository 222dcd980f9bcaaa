import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectAccount, formatAccounts } from '../../src/accounts/commands.js';
import { storeSignIn } from '../../src/accounts/sign-in.js';
import { loadConfig } from '../../src/config.js';
import { vercel } from '../../src/connectors/vercel/connector.js';
import { InputError } from '../../src/errors.js';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { addCredential } from '../../src/web/actions.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(async () => {
  h.sandbox.servers.vercel.reset();
  for (const a of await h.store.accounts.list({ provider: 'vercel' })) if (a.label !== 'sample') await h.store.accounts.remove(a.id);
});

const deps = () => ({ store: h.store, baseUrls: h.sandbox.baseUrls });
const token = { kind: 'token' as const, token: SANDBOX_TOKENS.vercel };
const paths = () => h.sandbox.servers.vercel.requests.map((r) => `${r.method} ${r.path}`);
const vercelLabels = async () => (await h.store.accounts.list({ provider: 'vercel' })).map((a) => a.label).sort();

/** The error connectAccount throws, which must be an InputError about the team. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).field).toBe('team');
  return (error as Error).message;
}

describe('adding a Vercel account for a team', () => {
  it('checks a team id with Vercel and stores its id, slug and name; calls then carry teamId', async () => {
    const account = await connectAccount(deps(), { provider: 'vercel', label: 'work', teamId: 'team_sbx', secret: token });
    expect(account.meta).toMatchObject({ teamId: 'team_sbx', teamSlug: 'sbx-team', teamName: 'Sandbox Team' });
    expect(paths()).toEqual(['GET /v2/user', 'GET /v2/teams/team_sbx']);
    const { secret } = await h.store.accounts.resolve('vercel', 'work');
    const projects = await vercel.api(account, secret, deps()).get<{ projects: Array<{ accountId: string }> }>('/v9/projects');
    expect(projects.projects.map((p) => p.accountId)).toEqual(['team_sbx']);
  });

  it('takes a slug and stores the team id', async () => {
    const account = await connectAccount(deps(), { provider: 'vercel', label: 'by-slug', teamId: ' sbx-team ', secret: token });
    expect(account.meta).toMatchObject({ teamId: 'team_sbx', teamSlug: 'sbx-team', teamName: 'Sandbox Team' });
    expect((await h.store.accounts.find('by-slug', 'vercel'))!.meta.teamId).toBe('team_sbx');
  });

  it('refuses a team that does not exist, lists the teams the token can see, and stores nothing', async () => {
    const message = await refusal(connectAccount(deps(), { provider: 'vercel', label: 'ghost', teamId: 'team_abc123', secret: token }));
    expect(message).toContain('"team_abc123"');
    expect(message).toContain('Vercel answered 404: Team not found');
    expect(message).toContain('team_sbx (slug sbx-team, "Sandbox Team")');
    expect(message).not.toContain('team_other');
    expect(message).toContain('--team on the command line');
    expect(message).toMatch(/leave it out to use the personal account/);
    expect(paths()).toEqual(['GET /v2/user', 'GET /v2/teams/team_abc123', 'GET /v2/teams']);
    expect(await vercelLabels()).toEqual(['sample']);
  });

  it('refuses a team the token is not a member of (Vercel answers 403)', async () => {
    const message = await refusal(connectAccount(deps(), { provider: 'vercel', label: 'other', teamId: 'someone-else', secret: token }));
    expect(message).toContain('Vercel answered 403: Not authorized');
    expect(message).toContain('Teams this token can see: team_sbx');
    expect(await vercelLabels()).toEqual(['sample']);
  });

  it('refuses something that is no id or slug before asking for it', async () => {
    const message = await refusal(connectAccount(deps(), { provider: 'vercel', teamId: '../v2/user', secret: token }));
    expect(message).toMatch(/neither a team id \(team_…\) nor a slug/);
    expect(paths()).toEqual(['GET /v2/user', 'GET /v2/teams']);
    expect(await vercelLabels()).toEqual(['sample']);
  });

  it('says so when the token can see no team at all', async () => {
    const teams = h.sandbox.states.vercel.teams;
    const saved = teams.splice(0, teams.length);
    try {
      const message = await refusal(connectAccount(deps(), { provider: 'vercel', teamId: 'team_sbx', secret: token }));
      expect(message).toMatch(/This token can see no teams at all/);
    } finally {
      teams.push(...saved);
    }
  });

  it('refuses a team for other providers without asking them', async () => {
    const message = await refusal(connectAccount(deps(), { provider: 'github', teamId: 'team_sbx', secret: { kind: 'token', token: SANDBOX_TOKENS.github } }));
    expect(message).toBe('--team applies to Vercel accounts only.');
    expect(h.sandbox.servers.github.requests.filter((r) => r.path === '/user')).toEqual([]);
  });

  it('checks the team an OAuth sign-in names (team_id) the same way', async () => {
    const granted = (teamId: string) => ({ accessToken: SANDBOX_TOKENS.vercel, extra: { team_id: teamId, installation_id: 'icfg_1' } });
    const o = { signIn: 'browser' as const, requested: [], now: Date.now() };
    const account = await storeSignIn(deps(), 'vercel', granted('sbx-team'), { ...o, label: 'installed' });
    expect(account.meta).toMatchObject({ teamId: 'team_sbx', teamSlug: 'sbx-team', signIn: 'browser' });
    const message = await refusal(storeSignIn(deps(), 'vercel', granted('team_other'), { ...o, label: 'elsewhere' }));
    expect(message).toContain('Teams this token can see: team_sbx');
    expect(await vercelLabels()).toEqual(['installed', 'sample']);
  });

  it('checks the team typed on the Integrations page the same way', async () => {
    const w = { deps: h.deps, config: loadConfig({}), logger: h.deps.logger! };
    const form = (team: string, label: string) =>
      new Map([
        ['provider', ['vercel']],
        ['secret', [SANDBOX_TOKENS.vercel]],
        ['label', [label]],
        ['team', [team]],
      ]);
    const bad = await addCredential(w, form('team_abc123', 'page-bad'));
    expect(bad).toMatchObject({ field: 'team', error: expect.stringContaining('Teams this token can see: team_sbx') });
    expect(await addCredential(w, form('sbx-team', 'page'))).toMatchObject({ ok: expect.stringContaining('Connected vercel account "page"') });
    expect((await h.store.accounts.find('page', 'vercel'))!.meta.teamId).toBe('team_sbx');
    expect(await vercelLabels()).toEqual(['page', 'sample']);
  });
});

describe('the team in account listings', () => {
  it('accounts_list gives team {id, slug, name}, or null', async () => {
    await connectAccount(deps(), { provider: 'vercel', label: 'work', teamId: 'sbx-team', secret: token });
    const { accounts } = await h.ok('accounts_list', { provider: 'vercel' });
    const byLabel = Object.fromEntries(accounts.map((a: { label: string; team: unknown }) => [a.label, a.team]));
    expect(byLabel).toEqual({ sample: null, work: { id: 'team_sbx', slug: 'sbx-team', name: 'Sandbox Team' } });
    const github = await h.ok('accounts_list', { provider: 'github' });
    expect(github.accounts.every((a: { team: unknown }) => a.team === null)).toBe(true);
  });

  it('the accounts list table has a TEAM column (the slug, or the id of a team stored before teams were checked)', async () => {
    await connectAccount(deps(), { provider: 'vercel', label: 'work', teamId: 'team_sbx', secret: token });
    await h.store.accounts.add({ provider: 'vercel', label: 'older', meta: { teamId: 'team_old' }, secret: token });
    const lines = formatAccounts(await h.store.accounts.list({ provider: 'vercel' })).split('\n');
    expect(lines[0]).toMatch(/^PROVIDER\s+LABEL\s+IDENTITY\s+TEAM\s+STATUS\s+ID$/);
    const team = (label: string) => lines.map((l) => l.split(/\s{2,}/)).find((cells) => cells[1] === label)![3];
    expect(team('work')).toBe('sbx-team');
    expect(team('older')).toBe('team_old');
    expect(team('sample (default)')).toBe('-');
  });
});
