import { wrapped } from '../cli-text.js';
import type { TeamRule } from '../contracts/team.js';
import { OAUTH_PROVIDERS, type OAuthProvider } from '../config.js';
import { oauthRecord } from '../providers.js';
import { sandboxCredentials, SANDBOX_IDENTITIES } from './index.js';
import { oauthPaths } from './oauth/endpoints.js';
import type { SandboxEndpoints } from './shared.js';
import { SANDBOX_PEOPLE } from './team.js';

/** The Inspector release whose command line runs on Node 20 (later ones need Node 22). */
export const INSPECTOR = '@modelcontextprotocol/inspector-cli@0.15.0';

export interface BannerOptions {
  /** How to run this CLI again: `switchboard`, or node and the script. */
  cli: string;
  /** The store options serve was started with (`--data-dir DIR`), carried by every command printed, shell-quoted. */
  storeArgs: string[];
  /** Team mode: who may sign in, and whether that is the sandbox's default. */
  team?: { allow: TeamRule[]; sandboxPeople: boolean };
}

/** What `serve --sandbox` prints on stderr once it is ready: where things are, the sample credentials, and what to try. */
export function sandboxBanner(endpoints: SandboxEndpoints, o: BannerOptions): string {
  const sandbox = ['--sandbox', ...o.storeArgs].join(' ');
  const run = (command: string) => `${o.cli} ${command.replace('--sandbox', sandbox)}`;
  const credentials = sandboxCredentials();
  const kindWidth = Math.max(...credentials.map((c) => c.kind.length));
  const valueWidth = Math.max(...credentials.map((c) => c.value.length));
  return [
    '',
    'Switchboard sandbox: local stand-in providers with sample data; no account and no network needed.',
    `  MCP endpoint:      ${endpoints.mcp}`,
    `  Integrations page: ${endpoints.page ?? 'not served by this process (another one on the same data dir serves it)'}`,
    `  Sample accounts, each labelled "sandbox": outlook ${SANDBOX_IDENTITIES.outlook}, github ${SANDBOX_IDENTITIES.github}, vercel ${SANDBOX_IDENTITIES.vercel}, sales (API key).`,
    ...Object.entries(endpoints.baseUrls).map(([p, url]) => `  ${p.padEnd(8)} sandbox at ${url}`),
    '  Credentials the stand-ins accept (public sample values, good nowhere else):',
    ...credentials.map((c) => `    ${c.provider.padEnd(8)} ${c.kind.padEnd(kindWidth)}  ${c.value.padEnd(valueWidth)}  ${c.who}`),
    '    serve --sandbox signs people in with these OAuth apps by itself.',
    '',
    ...(o.team ? teamLines(endpoints, o, run) : [`Try it (in another terminal):`, '  1. Call a tool:', `     ${inspectorCall(endpoints, o, sandbox)}`]),
    '  2. Start a trigger and watch its events:',
    `     ${run("triggers add outlook.new_email --sandbox --interval 10 --filter 'from:*@acme.com'")}`,
    `     ${run('events tail --sandbox')}`,
    '  3. Deliver a sample email (it shows up in events tail within the poll interval):',
    `     curl -X POST ${endpoints.servers.outlook}/_sandbox/outlook/deliver -H 'content-type: application/json' -d '{"subject":"Hello","from":{"address":"dana@acme.com"}}'`,
    `  Every command takes --sandbox and then uses these stand-ins, e.g. ${run('accounts list --sandbox')}.`,
    `  Sign-in pages: device codes are approved at ${devicePages(endpoints).join(' and ')}.`,
    '',
  ].join('\n');
}

function devicePages(endpoints: SandboxEndpoints): string[] {
  return OAUTH_PROVIDERS.flatMap((p) => {
    const page = oauthPaths(p).verification;
    return page ? [endpoints.servers[p] + page] : [];
  });
}

function inspectorCall(endpoints: SandboxEndpoints, o: BannerOptions, sandbox: string): string {
  const target = endpoints.mcp === 'stdio' ? `${o.cli} serve ${sandbox}` : `${endpoints.mcp} --transport http`;
  return `npx ${INSPECTOR} --cli ${target} --method tools/call --tool-name github_get_repository --tool-arg owner=sbx-octocat --tool-arg repo=hello-world`;
}

/** Team mode: who may sign in, and the two ways a client gets a token; never an unauthenticated client command (401). */
function teamLines(endpoints: SandboxEndpoints, o: BannerOptions, run: (command: string) => string): string[] {
  const team = o.team!;
  const people = SANDBOX_PEOPLE.map((p) => `${p.login} (${oauthRecord(p.provider as OAuthProvider).title})`).join(' and ');
  const allowed = team.sandboxPeople
    ? `Who may sign in: the sandbox's people, ${people}, and no one else, as SWITCHBOARD_TEAM_ALLOW is not set.`
    : `Who may sign in: SWITCHBOARD_TEAM_ALLOW=${team.allow.map(ruleText).join(',')}; the sandbox's people are ${people}.`;
  const person = SANDBOX_PEOPLE[0]!.login;
  return [
    ...wrapped(
      "Team mode: MCP clients and the Integrations page sign in at the sandbox's GitHub or Microsoft, whose sign-in pages run on this machine. " +
        `${allowed} The sample accounts are shared with everyone on the team.`,
    ),
    '',
    'Try it (in another terminal):',
    '  1. Connect an MCP client, one of two ways:',
    `     a. A client that signs in by itself (OAuth): give it ${endpoints.mcp}; on the page it opens,`,
    '        choose Continue with GitHub, then Allow.',
    `     b. A client you give a header: make a personal access token for ${person}, then pass it in`,
    '        the header Authorization: Bearer <token>, as here for Claude Code:',
    `        TOKEN=$(${run(`tokens create --user ${person} --sandbox --name sandbox-client`)})`,
    `        claude mcp add --transport http switchboard-sandbox ${endpoints.mcp} --header "Authorization: Bearer $TOKEN"`,
  ];
}

function ruleText(rule: TeamRule): string {
  if (rule.kind === 'address') return rule.address;
  if (rule.kind === 'domain') return `@${rule.domain}`;
  return `github-org:${rule.org}`;
}
