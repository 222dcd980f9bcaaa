import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { watchMisses } from '../support/misses.js';

export const CLI = fileURLToPath(new URL('../../dist/bin/switchboard.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a newcomer would, with only the environment given. */
export function runCli(args: string[], options: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: 'pipe' });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** Runs `serve` over stdio with standard input held open, so only a failure can end it; resolves at its exit. */
export function serveStdioUntilExit(args: string[], env: Record<string, string>, deadlineMs = 25_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts `switchboard serve --http` and resolves with its MCP URL once it listens. */
export function startHttpServe(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    watchMisses(child.stderr);
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /"mcp":"(http:\/\/[^"]+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

/** Starts the CLI and resolves once its stderr matches `ready`: the line it prints when it is listening. */
export function startUntilReady(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; stdout: () => string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`switchboard ${args.join(' ')} did not print ${ready} within 20 s: ${stderr}`));
    }, 20_000);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (ready.test(stderr)) {
        clearTimeout(timer);
        resolve({ child, stdout: () => stdout, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`switchboard ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
  });
}
