import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { windowStart } from '../../src/governance/budgets.js';
import { openStore } from '../../src/store/index.js';
import { runCli } from '../e2e/cli.js';

/** `switchboard budgets`, run as built: each person's usage in the current windows beside the policy's limits. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('switchboard budgets', () => {
  it("prints everyone's usage, or one person's, as text and JSON, and names --user when no one matches", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-budgets-'));
    dirs.push(dataDir);
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: 'budgets cli key', SWITCHBOARD_POLICY: join(dataDir, 'policy.json') };
    writeFileSync(env.SWITCHBOARD_POLICY, JSON.stringify({ budgets: [{ for: ['*'], accounts: ['github'], providerRequestsPerHour: 1000 }, { for: ['ada'], emailsPerDay: 5 }] }));
    const store = await openStore({ dataDir, secretKey: env.SWITCHBOARD_SECRET_KEY });
    const ada = await store.team.users.signIn({ provider: 'github', subject: 'id-ada', login: 'ada', email: 'ada@contoso.example' });
    const bob = await store.team.users.signIn({ provider: 'github', subject: 'id-bob', login: 'bob', email: 'bob@contoso.example' });
    const github = await store.ownedBy(ada.id).accounts.add({ provider: 'github', label: 'team', secret: { kind: 'token', token: 'ghp_budgets_cli_0001' } });
    const now = Date.now();
    const hour = new Date(windowStart('providerRequests', now)).toISOString();
    await store.budgets.take({ owner: ada.id, accountId: github.id, meter: 'providerRequests', windowStart: hour }, 12, 1000);
    await store.budgets.take({ owner: bob.id, accountId: github.id, meter: 'providerRequests', windowStart: hour }, 40, 1000);
    // Yesterday's emails are not this window's.
    await store.budgets.take({ owner: ada.id, accountId: github.id, meter: 'emails', windowStart: new Date(windowStart('emails', now) - 86_400_000).toISOString() }, 3, 5);
    await store.close();

    const all = await runCli(['budgets'], { env });
    expect(all.stderr).toBe('');
    expect(all.stdout.trim().split('\n').map((l) => l.replace(/, resets .*/, ''))).toEqual([
      'ada  github "team"  providerRequestsPerHour: 12 of 1000 (budgets.0)',
      'bob  github "team"  providerRequestsPerHour: 40 of 1000 (budgets.0)',
    ]);
    const bobs = await runCli(['budgets', '--user', 'bob@contoso.example', '--json'], { env });
    expect(JSON.parse(bobs.stdout)).toEqual([
      expect.objectContaining({ person: 'bob', owner: bob.id, accountId: github.id, budget: 'providerRequestsPerHour', used: 40, limit: 1000, rule: 'budgets.0', windowStart: hour }),
    ]);
    const nobody = await runCli(['budgets', '--user', 'carol'], { env });
    expect(nobody.code).not.toBe(0);
    expect(nobody.stderr).toMatch(/--user "carol": no one with that id, login or address has signed in/);
  });
});
