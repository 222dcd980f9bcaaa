import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rawToolCall } from './wire.js';

export const CLI = fileURLToPath(new URL('../dist/bin/switchboard.js', import.meta.url));

/** Reads the sandbox banner's "<provider> sandbox at <url>" lines and the HTTP listener's MCP URL from stderr. */
function watchStderr(stream) {
  let text = '';
  const found = { baseUrls: {}, mcpUrl: undefined };
  const waiters = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    text += chunk;
    for (const m of text.matchAll(/^\s+(\w+)\s+sandbox at (http:\/\/127\.0\.0\.1:\d+\S*)$/gm)) found.baseUrls[m[1]] = m[2];
    const mcp = /MCP endpoint:\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text) ?? /"mcp":"(http:\/\/127\.0\.0\.1:\d+\/mcp)"/.exec(text);
    if (mcp) found.mcpUrl = mcp[1];
    for (const w of waiters.splice(0)) w();
  });
  const until = async (ready, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!ready(found)) {
      if (Date.now() > deadline) throw new Error(`server did not get ready; stderr:\n${text.slice(-2000)}`);
      await new Promise((r) => (waiters.push(r), setTimeout(r, 100)));
    }
    return found;
  };
  return { found, until };
}

/** `switchboard serve --http` (with the sandbox unless told not to) in its own process, on a free port. */
export async function spawnHttpServer({ extraArgs = [], env = {}, nodeArgs = [], sandbox = true, dataDir: given } = {}) {
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const args = [...nodeArgs, CLI, 'serve', ...(sandbox ? ['--sandbox'] : []), '--http', '--port', '0', ...extraArgs];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_LOG_LEVEL: sandbox ? 'warn' : 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const { until } = watchStderr(child.stderr);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    if (!given) rmSync(dataDir, { recursive: true, force: true });
  };
  const found = await until((f) => f.mcpUrl && (!sandbox || f.baseUrls.github)).catch(async (error) => {
    await stop();
    throw error;
  });
  return {
    pid: child.pid,
    dataDir,
    mcpUrl: found.mcpUrl,
    baseUrls: found.baseUrls,
    async client(name = 'bench') {
      const client = new Client({ name, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(found.mcpUrl)));
      return client;
    },
    close: stop,
  };
}

/** `switchboard serve --sandbox` over stdio: a real MCP client that spawned it, and the sandbox's URLs. */
export async function spawnStdioServer({ extraArgs = [], env = {} } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--sandbox', '--port', '0', ...extraArgs],
    env: { PATH: process.env.PATH, SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_LOG_LEVEL: 'warn', ...env },
    stderr: 'pipe',
  });
  const { until } = watchStderr(transport.stderr);
  const client = new Client({ name: 'bench', version: '1' });
  const close = async () => {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await client.connect(transport);
    const found = await until((f) => f.baseUrls.github);
    return { client, pid: transport.pid, baseUrls: found.baseUrls, close };
  } catch (error) {
    await transport.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A bare SDK Streamable HTTP server with one tool (bench/bare-http-server.mjs, SDK v1, unless `script` names another),
 * and a 2025 client connected to it.
 */
export async function spawnBareHttpServer({ script = 'bare-http-server.mjs', env = {} } = {}) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(`./${script}`, import.meta.url))], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const { until } = watchStderr(child.stderr);
  const connect = async (name = 'bench') => {
    const client = new Client({ name, version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(found.mcpUrl)));
    return client;
  };
  let found;
  let client;
  try {
    found = await until((f) => f.mcpUrl);
    client = await connect();
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    client,
    /** Another session on the same server. */
    connect,
    pid: child.pid,
    mcpUrl: found.mcpUrl,
    async close() {
      await client.close();
      child.kill();
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    },
  };
}

// USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on Linux x86 and Arm.
const CLOCK_TICKS = 100;

/** Bytes a process has written (write and send calls, sockets included), from /proc; undefined when it is gone. */
export function writtenBytes(pid) {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc; undefined where there is no /proc. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * `switchboard serve --sandbox --http` and, beside it, a bare SDK v2 server (bench/bare-v2-server.mjs) whose one tool
 * has the same name and gives the same answer as Switchboard's `tool` (asked once with a 2026 request first).
 */
export async function spawnWithBareV2(tool) {
  const server = await spawnHttpServer();
  try {
    const probe = rawToolCall(server.mcpUrl, tool);
    const { _meta, resultType, ...answer } = await probe.call();
    await probe.close();
    const bare = await spawnBareHttpServer({ script: 'bare-v2-server.mjs', env: { BARE_TOOL: tool, BARE_RESULT: JSON.stringify(answer) } });
    return { server, bare, answerBytes: JSON.stringify(answer).length };
  } catch (error) {
    await server.close();
    throw error;
  }
}
