import type { SandboxEndpoints } from './shared.js';

/** The Inspector release whose command line runs on Node 20 (later ones need Node 22). */
export const INSPECTOR = '@modelcontextprotocol/inspector-cli@0.15.0';

/** What `serve --sandbox` prints on stderr once it is ready: where things are, and three things to try. */
export function sandboxBanner(endpoints: SandboxEndpoints, cli: string): string {
  const inspector =
    endpoints.mcp === 'stdio'
      ? `npx ${INSPECTOR} --cli ${cli} serve --sandbox`
      : `npx ${INSPECTOR} --cli ${endpoints.mcp} --transport http`;
  return [
    '',
    'Switchboard sandbox: local stand-in providers with sample data; no account and no network needed.',
    `  MCP endpoint:      ${endpoints.mcp}`,
    `  Integrations page: ${endpoints.page ?? 'not served by this process (another one on the same data dir serves it)'}`,
    '  Sample accounts, each labelled "sandbox": outlook avery@contoso.example, github sbx-octocat, vercel sbx-vercel, sales (API key).',
    ...Object.entries(endpoints.baseUrls).map(([p, url]) => `  ${p.padEnd(8)} sandbox at ${url}`),
    '',
    'Try it (in another terminal):',
    '  1. Call a tool:',
    `     ${inspector} --method tools/call --tool-name github_get_repository --tool-arg owner=sbx-octocat --tool-arg repo=hello-world`,
    '  2. Start a trigger and watch its events:',
    `     ${cli} triggers add outlook.new_email --sandbox --interval 10 --filter 'from:*@acme.com'`,
    `     ${cli} events tail --sandbox`,
    '  3. Deliver a sample email (it shows up in events tail within the poll interval):',
    `     curl -X POST ${endpoints.servers.outlook}/_sandbox/outlook/deliver -H 'content-type: application/json' -d '{"subject":"Hello","from":{"address":"dana@acme.com"}}'`,
    `  Every command takes --sandbox and then uses these stand-ins, e.g. ${cli} accounts list --sandbox.`,
    `  Sign-in pages: device codes are approved at ${endpoints.servers.outlook}/devicelogin and ${endpoints.servers.github}/login/device.`,
    '',
  ].join('\n');
}
