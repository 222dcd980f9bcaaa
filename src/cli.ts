#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { examples, cliWording, fileRefusal, HELP_WIDTH, type CliKit } from './cli-text.js';
import { loadConfig, type Config, type Flags } from './config.js';
import { AccountError, InputError, ProviderError } from './errors.js';
import { runKeyCommand } from './key-command.js';
import { loadSandbox } from './sandbox/load.js';
import { accountsCommand } from './accounts/cli.js';
import { sharingCommands, tokensCommand, usersCommand } from './team/cli.js';
import { budgetsCommand } from './team/budgets-cli.js';
import { auditCommand } from './governance/cli.js';
import { eventsCommand, triggersCommand } from './triggers/cli.js';
import { dbCommand, secretsCommand } from './store-cli.js';
import { approvalsCommand, policyCommand } from './governance/cli.js';
import { didYouMean } from './suggest.js';
import { VERSION } from './version.js';

/** Every command module is imported in its action, so `serve` starts without loading the CLI's other commands. */
export function buildProgram(): Command {
  const program = new Command('switchboard')
    .description('An MCP server for Outlook, GitHub, Vercel and a sales-intelligence API: tools and triggers for LLM agents.')
    .version(VERSION, '-v, --version')
    .addHelpText(
      'after',
      examples(
        'switchboard serve --sandbox --http   # try everything with local stand-in providers',
        'switchboard mcp-config               # the snippet that adds this install to a desktop assistant',
        "switchboard <command> --help         # each command's options and examples",
      ),
    );

  withCommon(program.command('serve'))
    .description('Run the MCP server: over stdio (for desktop assistants), or over Streamable HTTP at /mcp with --http.')
    .option('--http', 'serve MCP over Streamable HTTP instead of stdio')
    .option('--host <address>', 'address the HTTP listener binds (default 127.0.0.1)')
    .option('--port <n>', 'port of the HTTP listener (default 8765; 0 for any free port)')
    .option('--public-url <url>', 'where providers reach this server, for webhook triggers and Graph change notifications (env SWITCHBOARD_PUBLIC_URL)')
    .option(
      '--team',
      'with --http and --public-url: people sign in (OAuth) with GitHub or Microsoft, or at SWITCHBOARD_TEAM_ISSUER; SWITCHBOARD_TEAM_ALLOW says who may (env SWITCHBOARD_TEAM=1). With --sandbox neither is needed: the sandbox\'s own people sign in at http://127.0.0.1:PORT',
    )
    .option('--toolsets <list>', "list only these connectors' tools: outlook,sales,github,vercel")
    .option('--tools <list>', 'list only these tools: names or globs, such as github_*,outlook_send_email')
    .option('--exclude-tools <list>', 'never list these tools: names or globs')
    .addOption(choice('--tool-mode <mode>', 'all tools, or only tools_search/tools_describe/tools_call', ['all', 'discover']))
    .option('--read-only', 'list only tools that change nothing')
    .option('--max-result-tokens <n>', 'cut larger tool results with a cursor (default 25000)')
    .addOption(choice('--log-level <level>', 'stderr log level (default info)', ['debug', 'info', 'warn', 'error']))
    .option('--shutdown-grace <seconds>', 'on SIGTERM/SIGINT, how long tool calls in flight may take to finish (default 10)')
    .addHelpText(
      'after',
      examples(
        'switchboard serve --sandbox --http',
        'switchboard serve --sandbox --http --team',
        'switchboard serve --toolsets outlook,github --read-only',
        'switchboard serve --tools "github_*_issue*,accounts_list" --exclude-tools github_api_call',
        'switchboard serve --http --port 9000 --public-url https://hooks.example.net',
      ),
    )
    .action(async (opts) => {
      const { serve } = await import('./serve.js');
      const io = { stdin: process.stdin, stdout: process.stdout, cli: cliInvocation(), storeArgs: storeArgsOf(opts) };
      const running = await serve(configOf(opts), io);
      // The first signal drains (calls in flight finish); a second one ends the process at once.
      let signalled = false;
      const stop = () => (signalled ? process.exit(1) : ((signalled = true), void running.close()));
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
      await running.closed;
    });

  withCommon(program.command('mcp-config'))
    .description('Print the exact snippet that makes an MCP client start this install (absolute paths, data directory).')
    .addOption(choice('--client <name>', 'the MCP client', ['claude-desktop', 'claude-code', 'cursor', 'vscode']).default('claude-desktop'))
    .option('--name <key>', "server key in the client's config; clients prefix tool names with it", 'switchboard')
    .option('--toolsets <list>', 'pass --toolsets to serve')
    .option('--tools <list>', 'pass --tools to serve')
    .option('--exclude-tools <list>', 'pass --exclude-tools to serve')
    .addOption(choice('--tool-mode <mode>', 'pass --tool-mode to serve', ['all', 'discover']))
    .option('--read-only', 'pass --read-only to serve')
    .addHelpText('after', examples('switchboard mcp-config', 'switchboard mcp-config --client claude-code --sandbox', 'switchboard mcp-config --client vscode --toolsets github'))
    .action(async (opts) => {
      const { mcpConfigSnippet, serveArgsOf } = await import('./mcp-config.js');
      const config = configOf(opts);
      // Names the server would refuse are refused now, not when the client starts it.
      (await import('./registry.js')).serverTools(config);
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(opts.name)) throw new InputError(`--name must be 1 to 32 letters, digits, - or _, not "${opts.name}".`, 'name');
      const serveArgs = serveArgsOf(config, opts);
      const snippet = mcpConfigSnippet(opts.client, { name: opts.name, node: process.execPath, cli: realpathSync(process.argv[1]!), serveArgs, env: { SWITCHBOARD_DATA_DIR: config.dataDir } });
      say(snippet.where);
      print(snippet.text);
    });

  const kit: CliKit = { withStore, withCommon, withConfig, configOf, print, say, readStdin };
  const accounts = program.command('accounts').description('Connect, list and remove accounts at the providers.');
  accountsCommand(accounts, kit);
  sharingCommands(accounts, kit);
  accounts.addHelpText('after', examples('printf %s "$GITHUB_TOKEN" | switchboard accounts add github --token-stdin', 'switchboard accounts list --sandbox'));
  triggersCommand(program.command('triggers').description('Standing requests (new email, GitHub events, Vercel deployments) whose events land in the event log.'), kit);
  eventsCommand(program.command('events').description('Read the event log.'), kit);
  secretsCommand(program.command('secrets').description('The key that encrypts stored secrets.'), kit);
  dbCommand(program.command('db').description("The store's database: bring its schema up to date, back up and restore a SQLite store, or move it into PostgreSQL."), kit);
  usersCommand(program.command('users').description('The people who signed in to a team server (serve --http --team).'), kit);
  policyCommand(program.command('policy').description('The governance policy: which calls need a person\'s yes, budgets, tools per person.'), kit);
  approvalsCommand(program.command('approvals').description('Calls waiting for a person\'s yes: list, approve or deny them.'), kit);
  tokensCommand(program.command('tokens').description('Personal access tokens for agents that cannot sign in to a team server: shown once, stored hashed.'), kit);
  budgetsCommand(program.command('budgets').description("Each person's use of the policy's budgets in the current hour and UTC day: provider requests, sales credits, emails."), kit);
  auditCommand(program.command('audit').description('The audit trail: every tool call and administrative act, newest first; export it as NDJSON or verify its chain.'), kit);
  return program;
}

function withCommon(command: Command): Command {
  return withStore(command).option('--sandbox', 'use the local stand-in providers and the sandbox store (those of a running serve --sandbox when there is one)');
}

function withStore(command: Command): Command {
  return command
    .option('--data-dir <dir>', "where the store lives (env SWITCHBOARD_DATA_DIR; default: the platform's data folder)")
    .option('--database-url <url>', 'keep the store in this PostgreSQL database, shared by every instance given it (env SWITCHBOARD_DATABASE_URL, which keeps the password out of the process list)');
}

/** An option of a closed set: a value outside it is refused with the set and the nearest choice. */
function choice(flags: string, description: string, choices: string[]): Option {
  return new Option(flags, description).choices(choices).argParser((value: string) => {
    if (choices.includes(value)) return value;
    throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')}.${didYouMean(value, choices)}`);
  });
}

/** Commander's camelCase options as the kebab-case flags loadConfig reads. */
function configOf(opts: Record<string, unknown>): Config {
  if (opts.sandbox && opts.databaseUrl !== undefined) {
    throw new InputError('--database-url does not go with --sandbox: the sandbox keeps its own SQLite store under --data-dir. Drop one of the two.', 'database-url');
  }
  const flags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) flags[key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)] = value;
  if (typeof flags['data-dir'] === 'string') flags['data-dir'] = resolve(flags['data-dir']);
  const config = loadConfig(process.env, flags as Flags);
  return config.secretKeyCommand ? { ...config, secretKey: runKeyCommand(config.secretKeyCommand, process.env) } : config;
}

/** The store options serve was given, which the commands its sandbox banner prints must carry to reach the same store. */
function storeArgsOf(opts: Record<string, unknown>): string[] {
  const dir = (opts.dataDir as string | undefined) ?? process.env.SWITCHBOARD_DATA_DIR;
  return dir ? ['--data-dir', shellQuoted(resolve(dir))] : [];
}

function shellQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Runs a command with its config; with --sandbox, against the sandbox's stand-ins and store, or its store alone. */
async function withConfig(opts: Record<string, unknown>, run: (config: Config) => Promise<void>, options: { standIns?: boolean; people?: boolean } = {}): Promise<void> {
  const config = configOf(opts);
  if (!config.sandbox) return run(config);
  const { joinSandbox, sandboxStoreConfig } = await loadSandbox();
  if (options.standIns === false) return run(await sandboxStoreConfig(config, { people: options.people ?? false }));
  const session = await joinSandbox(config);
  if (session.temporary) say('No serve --sandbox is running, so this command uses stand-ins of its own (sample data, gone when it ends).');
  try {
    await run(session.config);
  } finally {
    await session.close();
  }
}

/** How a person runs this CLI again: `switchboard` when installed on PATH, else node and the script. */
function cliInvocation(): string {
  const script = process.argv[1] ?? join('dist', 'bin', 'switchboard.js');
  if (/(^|[/\\])switchboard$/.test(script)) return 'switchboard';
  const local = relative(process.cwd(), script);
  if (local === join('dist', 'bin', 'switchboard.js')) return 'npx switchboard';
  return `node ${local && !local.startsWith('..') ? local : script}`;
}

function print(text: string): void {
  process.stdout.write(text + '\n');
}

function say(text: string): void {
  process.stderr.write(text + '\n');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new InputError('Standard input is a terminal: pipe the secret in, for example from a password manager.');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function configure(command: Command, path: string): void {
  command
    .exitOverride()
    .configureHelp({ helpWidth: HELP_WIDTH })
    .showHelpAfterError(`(run: ${path} --help)`)
    .configureOutput({ outputError: (text, write) => write(`switchboard: ${text.replace(/^error: /, '')}`) });
  for (const sub of command.commands) configure(sub, `${path} ${sub.name()}`);
}

/** The whole command line: the program with every command, configured as it runs. */
export function cliProgram(): Command {
  const program = buildProgram();
  configure(program, 'switchboard');
  return program;
}

/**
 * Exit codes: 0 done; 2 refused before doing anything (a mistyped command or flag, a bad value, a setting or a state of
 * the store to fix first), the message saying what and how; 1 a provider or an account failed, or an unexpected failure.
 */
async function main(argv: string[]): Promise<number> {
  const program = cliProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    // A command that found something wrong without failing (audit verify) has set its exit code.
    return Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}

function failed(error: unknown): void {
  const file = fileRefusal(error);
  if (file) {
    say(`switchboard: ${file}`);
    process.exitCode = 2;
    return;
  }
  const known = error instanceof InputError || error instanceof AccountError || error instanceof ProviderError;
  // A list of tool names stays one: accounts_list there is a tool, not the command of the same name.
  const toolNames = error instanceof InputError && (error.field === 'tools' || error.field === 'exclude-tools');
  const message = (error as Error)?.message ?? String(error);
  say(`switchboard: ${known ? (toolNames ? message : cliWording(message)) : `unexpected failure: ${message}`}`);
  process.exitCode = error instanceof InputError ? 2 : 1;
}

/** Whether this module is the program run (not imported, as the tests of the help texts do). */
function isEntryPoint(): boolean {
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1] ?? '')).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // A reader that stops early (`| head`) closes the pipe: end quietly, as other command-line tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
  main(process.argv.slice(2))
    .then((code) => (process.exitCode = code), failed)
    .finally(() => {
      // Everything the command opened is closed by now. A connection a library opens again after being ended (postgres.js
      // reconnecting after an outage of the database) must not keep the process from exiting.
      setTimeout(() => process.exit(), 2_000).unref();
    });
}
