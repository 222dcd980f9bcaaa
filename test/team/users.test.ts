import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/cli.js';
import { ADAPTERS, cleanUp, openAt } from '../store/adapters.js';

afterEach(cleanUp);

describe.each(ADAPTERS)('switchboard users on $name', (adapter) => {
  it('lists the people who signed in, disables, enables and removes them by login, address or id', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'users key' });
    const ada = await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: 'ada@example.com' });
    const bob = await store.team.users.signIn({ provider: 'outlook', subject: 'b-2', login: 'bob@example.com', email: 'bob@example.com' });
    const env = { SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'users key', ...(location.databaseUrl ? { SWITCHBOARD_DATABASE_URL: location.databaseUrl } : {}) };

    const listed = await runCli(['users', 'list'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^LOGIN +EMAIL +SIGNS IN WITH +ROLE +STATUS/);
    expect(listed.stdout).toMatch(new RegExp(`ada +ada@example.com +GitHub +admin +active .*${ada.id}`));
    expect(listed.stdout).toMatch(new RegExp(`bob@example.com +bob@example.com +Microsoft +member +active .*${bob.id}`));

    const disabled = await runCli(['users', 'disable', 'ADA@example.com'], { env });
    expect(disabled.stdout).toBe(`Disabled ada: their tokens no longer work (${ada.id}).\n`);
    expect((await store.team.users.get(ada.id))?.disabled).toBe(true);
    // Listed by sign-up time; two sign-ins within one millisecond may come in either order.
    const people = JSON.parse((await runCli(['users', 'list', '--json'], { env })).stdout);
    expect(people).toHaveLength(2);
    expect(people).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: ada.id, disabled: true, role: 'admin' }), expect.objectContaining({ id: bob.id, disabled: false })]),
    );
    expect((await runCli(['users', 'enable', 'ada'], { env })).code).toBe(0);
    expect((await store.team.users.get(ada.id))?.disabled).toBe(false);

    expect((await runCli(['users', 'remove', bob.id], { env })).stdout).toBe(`Removed bob@example.com (${bob.id}).\n`);
    expect((await store.team.users.list()).map((u) => u.id)).toEqual([ada.id]);
    const unknown = await runCli(['users', 'disable', 'carol'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No one called "carol" has signed in; switchboard users list shows who has.');
  });
});
