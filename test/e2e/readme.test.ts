import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from './cli.js';
import { watchMisses } from '../support/misses.js';
import { commandLines, ROOT, shellBlocks } from '../docs/markdown.js';
import { until } from '../support/wait.js';

/** The shell lines of the README's Quick start, comments dropped, without the set-up commands CI itself runs. */
function quickStartCommands(): string[] {
  return [...shellBlocks('README.md', '## Quick start'), ...shellBlocks('README.md', '### Try the sandbox'), ...shellBlocks('README.md', '### Install the command')]
    .flatMap(commandLines)
    .filter((line) => !line.startsWith('npm ci'));
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;
let prefix: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess;
let banner = '';
const background: ChildProcess[] = [];

function shell(command: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running command and resolves once its output matches `ready`. */
function startUntil(command: string, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  // Its own process group: npx runs the command as a child of its own, and both must go when the test ends.
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  watchMisses(child.stderr);
  background.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const check = (d: Buffer) => {
      output += d;
      if (ready.test(output)) resolve({ child, output: () => output });
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.on('exit', (code) => reject(new Error(`${command} exited ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-readme-'));
  prefix = mkdtempSync(join(tmpdir(), 'switchboard-prefix-'));
  // `npm install -g .` links into this prefix instead of the machine's, and its bin comes first on PATH.
  env = { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, npm_config_prefix: prefix, PATH: `${prefix}/bin:${process.env.PATH}` };
  server = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--http', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  watchMisses(server.stderr);
  server.stderr!.on('data', (d) => (banner += d));
  await until(() => /Try it[\s\S]*Sign-in pages/.test(banner), 'the sandbox banner', 20_000);
});

afterAll(async () => {
  for (const child of background) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(prefix, { recursive: true, force: true });
});

describe('the README against the sandbox', () => {
  it('every Quick start command works as written (port 8765 is the test server\'s), and so do the banner\'s', { timeout: 120_000 }, async () => {
    const port = /MCP endpoint:\s+http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(banner)![1]!;
    expect(banner).toContain(`Integrations page: http://127.0.0.1:${port}/`);
    expect(banner).toMatch(/Sample accounts.*outlook avery@contoso\.example, github sbx-octocat/);
    const commands = quickStartCommands().map((c) => c.replaceAll('8765', port));
    expect(commands.length).toBeGreaterThanOrEqual(8);

    const expectations: Array<[RegExp, RegExp]> = [
      [/--method tools\/list/, /"name": "github_get_repository"/],
      [/--method tools\/call/, /sbx-octocat\/hello-world/],
      [/accounts list --sandbox/, /github\s+sandbox \(default\)\s+sbx-octocat/],
      [/triggers add/, /Created trigger trg_[0-9a-f]+/],
      [/^switchboard --help/, /mcp-config/],
      [/^switchboard mcp-config/, /"mcpServers"/],
    ];
    let tail: Awaited<ReturnType<typeof startUntil>> | undefined;
    for (const command of commands) {
      if (/events tail/.test(command)) {
        tail = await startUntil(command, /Waiting for events/);
        continue;
      }
      const r = await shell(command);
      expect(r.code, `${command}\n${r.stderr}`).toBe(0);
      for (const [which, output] of expectations) if (which.test(command)) expect(r.stdout, command).toMatch(output);
    }
    expect(tail, 'the README shows events tail').toBeDefined();

    const tryIt = banner.slice(banner.indexOf('Try it')).split('\n').filter((l) => /^ {5}\S/.test(l)).map((l) => l.trim());
    expect(tryIt.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx @modelcontextprotocol/inspector-cli@0.15.0 --cli',
      'npx switchboard triggers',
      'npx switchboard events',
      'curl -X POST',
    ]);
    for (const command of tryIt.filter((c) => !/events tail/.test(c))) {
      const r = await shell(command);
      expect(r.code, `${command}\n${r.stderr}`).toBe(0);
    }
    await until(() => /Email from dana@acme\.com: Hello/.test(tail!.output()), 'the delivered email in events tail', 40_000);
  });
});
