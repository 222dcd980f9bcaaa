import { createServer } from 'node:net';
import type { Config } from '../config.js';
import type { TeamRule } from '../contracts/team.js';
import { EVERYONE, PERSONAL_OWNER } from '../store/index.js';
import type { Store, TeamSignIn } from '../store/types.js';
import { USERS } from './github/data.js';
import { USER } from './outlook/data.js';

/**
 * Team mode in the sandbox: its stand-in GitHub and Microsoft sign in one sample person each, and those two are the
 * team. They are stored as people who signed in (so `tokens create --user sbx-octocat --sandbox` works before anyone
 * opens a browser) under the identities the stand-ins vouch for, so a real sign-in later finds the same person.
 */
const OCTOCAT = USERS['sbx-octocat']!;
export const SANDBOX_PEOPLE: TeamSignIn[] = [
  { provider: 'github', subject: String(OCTOCAT.id), login: OCTOCAT.login, email: OCTOCAT.email },
  { provider: 'outlook', subject: USER.id, login: USER.userPrincipalName, email: USER.mail },
];

/** Who may sign in when SWITCHBOARD_TEAM_ALLOW names no one: exactly the sample people's addresses. */
export function sandboxTeamRules(): TeamRule[] {
  return SANDBOX_PEOPLE.map((p) => ({ kind: 'address', address: p.email!.toLowerCase() }));
}

/**
 * Once per sandbox store: the sample people, the first of them admin, and the sample accounts shared with everyone on
 * the team, so that a person's first tool call has an account to use.
 */
export async function seedSandboxTeam(store: Store): Promise<void> {
  if ((await store.team.users.list()).length > 0) return;
  for (const person of SANDBOX_PEOPLE) await store.team.users.signIn(person);
  const operator = store.ownedBy(PERSONAL_OWNER);
  for (const account of await operator.accounts.list()) {
    if (account.label === 'sandbox') await operator.accounts.share(account.id, EVERYONE);
  }
}

/**
 * `serve --sandbox --team` without --public-url: the listener's own http://127.0.0.1:PORT (a free port chosen now
 * for --port 0, as the issuer must be known before it listens); without SWITCHBOARD_TEAM_ALLOW, the sample people.
 */
export async function sandboxTeamConfig(config: Config): Promise<Config> {
  if (!config.team) return config;
  let { http } = config;
  if (!http.publicUrl) {
    const port = http.port || (await freePort());
    http = { ...http, port, publicUrl: `http://127.0.0.1:${port}` };
  }
  const team = config.team.sandboxPeople ? { ...config.team, allow: sandboxTeamRules() } : config.team;
  return { ...config, http, team };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
