import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../pg-global.js';
import { watchMisses } from '../support/misses.js';
import { commandLines, shellBlocks, SWITCHBOARD } from './markdown.js';

/**
 * docs/team.md's sandbox recipe, run as written: the data directory and the port (8765 in the text) given through the
 * environment, and `claude` a stand-in that prints the arguments it gets.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-docs-team-'));
const stops: Array<() => void> = [];
afterAll(() => {
  for (const stop of stops) stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('docs/team.md: Trying team mode in the sandbox', () => {
  it('starts with the one command; the token and the client command as written connect a client that calls a tool', { timeout: 90_000 }, async () => {
    const [serve, connect] = shellBlocks('docs/team.md', '## Trying team mode in the sandbox').map(commandLines);
    expect(serve).toEqual(['switchboard serve --sandbox --http --team']);
    const port = String(await freePort());
    const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_PORT: port };
    const server = spawn('bash', ['-c', `${SWITCHBOARD}\n${serve![0]}`], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    watchMisses(server.stderr);
    stops.push(() => server.exitCode === null && process.kill(-server.pid!, 'SIGKILL'));
    let stderr = '';
    server.stderr.on('data', (d) => (stderr += d));
    await expect.poll(() => stderr, { timeout: 30_000 }).toMatch(/"msg":"listening"/);
    expect(stderr).toContain(`"issuer":"http://127.0.0.1:${port}"`);

    const recorder = `claude() { printf '%s\\n' "$@"; }`;
    const script = [SWITCHBOARD, recorder, ...connect!.map((l) => l.replaceAll('8765', port))].join('\n');
    const run = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run.status, run.stderr).toBe(0);
    const args = run.stdout.trimEnd().split('\n');
    expect(args.slice(0, 6)).toEqual(['mcp', 'add', '--transport', 'http', 'switchboard-sandbox', `http://127.0.0.1:${port}/mcp`]);
    const [name, value] = args[7]!.split(': ');
    const client = new Client({ name: 'docs-team-sandbox', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(args[5]!), { requestInit: { headers: { [name!]: value! } } }));
    try {
      const repo = await client.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
      expect(repo.isError, JSON.stringify(repo.content)).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
