#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { examples, cliWording } from './cli-text.js';
import { checkProvider, loadConfig, type Config, type Flags } from './config.js';
import { AccountError, InputError, ProviderError } from './errors.js';
import { loadSandbox } from './sandbox/load.js';
import { accountsCommand } from './accounts/cli.js';
import { sharingCommands, tokensCommand, usersCommand } from './team/cli.js';
import { VERSION } from './version.js';

/** Every command module is imported in its action, so `serve` starts without loading the CLI's other commands. */
function buildProgram(): Command {
  const program = new Command('switchboard')
    .description('An MCP server for Outlook, GitHub, Vercel and a sales-intelligence API: tools and triggers for LLM agents.')
    .version(VERSION, '-v, --version')
    .addHelpText('after', `\nStart here:\n  $ switchboard serve --sandbox --http     try everything with local stand-in providers\n  $ switchboard mcp-config                 the snippet that adds this install to a desktop assistant\n  $ switchboard <command> --help           each command's options and examples`);

  withCommon(program.command('serve'))
    .description('Run the MCP server: over stdio (for desktop assistants), or over Streamable HTTP at /mcp with --http.')
    .option('--http', 'serve MCP over Streamable HTTP instead of stdio')
    .option('--host <address>', 'address the HTTP listener binds (default 127.0.0.1)')
    .option('--port <n>', 'port of the HTTP listener (default 8765; 0 for any free port)')
    .option('--public-url <url>', 'where providers reach this server, for webhook triggers and Graph change notifications (env SWITCHBOARD_PUBLIC_URL)')
    .option('--team', 'with --http and --public-url: people sign in (OAuth) with GitHub or Microsoft, or at SWITCHBOARD_TEAM_ISSUER; SWITCHBOARD_TEAM_ALLOW says who may (env SWITCHBOARD_TEAM=1)')
    .option('--toolsets <list>', 'list only these connectors\' tools: outlook,sales,github,vercel')
    .option('--tools <list>', 'list only these tools: names or globs, such as github_*,outlook_send_email')
    .option('--exclude-tools <list>', 'never list these tools: names or globs')
    .addOption(new Option('--tool-mode <mode>', 'all tools, or only tools_search/tools_describe/tools_call').choices(['all', 'discover']))
    .option('--read-only', 'list only tools that change nothing')
    .option('--max-result-tokens <n>', 'cut larger tool results with a cursor (default 25000)')
    .addOption(new Option('--log-level <level>', 'stderr log level (default info)').choices(['debug', 'info', 'warn', 'error']))
    .option('--shutdown-grace <seconds>', 'on SIGTERM/SIGINT, how long tool calls in flight may take to finish (default 10)')
    .addHelpText('after', examples('switchboard serve --sandbox --http', 'switchboard serve --toolsets outlook,github --read-only', 'switchboard serve --tools "github_*_issue*,accounts_list" --exclude-tools github_api_call', 'switchboard serve --http --port 9000 --public-url https://hooks.example.net'))
    .action(async (opts) => {
      const { serve } = await import('./serve.js');
      const running = await serve(configOf(opts), { stdin: process.stdin, stdout: process.stdout, cli: cliInvocation() });
      // The first signal drains (calls in flight finish); a second one ends the process at once.
      let signalled = false;
      const stop = () => (signalled ? process.exit(1) : ((signalled = true), void running.close()));
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
      await running.closed;
    });

  withCommon(program.command('mcp-config'))
    .description('Print the exact snippet that makes an MCP client start this install (absolute paths, data directory).')
    .addOption(new Option('--client <name>', 'the MCP client').choices(['claude-desktop', 'claude-code', 'cursor', 'vscode']).default('claude-desktop'))
    .option('--name <key>', 'server key in the client\'s config; clients prefix tool names with it', 'switchboard')
    .option('--toolsets <list>', 'pass --toolsets to serve')
    .option('--tools <list>', 'pass --tools to serve')
    .option('--exclude-tools <list>', 'pass --exclude-tools to serve')
    .addOption(new Option('--tool-mode <mode>', 'pass --tool-mode to serve').choices(['all', 'discover']))
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

  const kit = { withStore, withCommon, withConfig, configOf, print, say, readStdin };
  const accounts = program.command('accounts').description('Connect, list and remove accounts at the providers.');
  accountsCommand(accounts, kit);
  sharingCommands(accounts, kit);
  triggersCommand(program.command('triggers').description('Standing requests (new email, GitHub events, Vercel deployments) whose events land in the event log.'));

  const events = program.command('events').description('Read the event log.');
  withCommon(events.command('tail'))
    .description('Print events as they are committed; with --exec, run a command once per event.')
    .option('--trigger <id>', 'only this trigger\'s events')
    .option('--json', 'one JSON object per line (NDJSON)')
    .option('--exec <command>', 'run this shell command per event, the event JSON on its stdin; resumes where it stopped')
    .option('--consumer <name>', 'name of the cursor --exec keeps (default: derived from the command and trigger)')
    .option('--max-attempts <n>', '--exec: runs of a failing command (backing off from 1 s to 5 min) before the event is set aside as failed (default 10)')
    .addHelpText('after', examples('switchboard events tail', 'switchboard events tail --trigger trg_0123456789abcdef --json', "switchboard events tail --exec 'my-agent --stdin' --max-attempts 5"))
    .action(async (opts) => {
      const { tailEvents } = await import('./triggers/tail.js');
      await withConfig(opts, async (config) => {
        const stop = new AbortController();
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
        await tailEvents(config, {
          triggerId: opts.trigger,
          json: opts.json ?? false,
          exec: opts.exec,
          consumer: opts.consumer,
          maxAttempts: opts.maxAttempts,
          write: (line) => process.stdout.write(line + '\n'),
          warn: say,
          signal: stop.signal,
        });
      });
    });

  withCommon(events.command('failed'))
    .description('Events an --exec command failed on every attempt, per consumer.')
    .option('--consumer <name>', 'only this consumer\'s')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard events failed', 'switchboard events failed --consumer my-agent --json'))
    .action(async (opts) => {
      const { eventsFailed } = await import('./triggers/failed.js');
      await withConfig(opts, async (config) => print(await eventsFailed(config, { consumer: opts.consumer, json: opts.json })));
    });

  withCommon(events.command('retry'))
    .description('Run failed events again: the tail --exec of their consumer runs them before new events.')
    .argument('[event-id]', 'the event to run again (switchboard events failed lists them)')
    .option('--all', 'every failed event')
    .option('--consumer <name>', 'only for this consumer')
    .addHelpText('after', examples('switchboard events retry 42', 'switchboard events retry --all --consumer my-agent'))
    .action(async (eventId: string | undefined, opts) => {
      const { eventsRetry } = await import('./triggers/failed.js');
      await withConfig(opts, async (config) => print(await eventsRetry(config, { eventId, all: opts.all, consumer: opts.consumer })));
    });

  const secrets = program.command('secrets').description('The key that encrypts stored secrets.');
  withCommon(secrets.command('rotate'))
    .description('Re-encrypt every stored secret under a new key, in one transaction.')
    .option('--force', 'rotate even while a server using the store is running')
    .addHelpText('after', `\nThe new key goes to a new key file, or comes from SWITCHBOARD_NEW_SECRET_KEY when that is set.${examples('switchboard secrets rotate')}`)
    .action(async (opts) => {
      const { rotateSecrets } = await import('./store/index.js');
      await withConfig(opts, async (config) => {
        const r = await rotateSecrets({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey, newSecretKey: config.newSecretKey, force: opts.force });
        const dropped = r.salesCache ? ` Dropped ${r.salesCache} cached sales lookup(s), which were keyed with the old key.` : '';
        const counts = `Re-encrypted ${r.accounts} account, ${r.triggers} trigger and ${r.hooks} webhook secret(s) under a new key, in one transaction.${dropped}`;
        if (r.newKeyIn === 'keyFile') return print(`${counts}\nThe new key is in ${r.keyFile} (the old key is gone); keep a backup of that file.`);
        print(
          `${counts}\nSet SWITCHBOARD_SECRET_KEY to the value of SWITCHBOARD_NEW_SECRET_KEY before starting Switchboard again.` +
            (r.staleKeyFile ? `\nThe key file ${r.staleKeyFile} holds the old key and is no longer used: delete it once SWITCHBOARD_SECRET_KEY is set.` : ''),
        );
      });
    });
  dbCommand(program.command('db').description("The store's database: bring its schema up to date, or move a SQLite store into PostgreSQL."));
  usersCommand(program.command('users').description('The people who signed in to a team server (serve --http --team).'), kit);
  tokensCommand(program.command('tokens').description('Personal access tokens for agents that cannot sign in to a team server: shown once, stored hashed.'), kit);
  return program;
}

function dbCommand(db: Command): void {
  withStore(db.command('migrate'))
    .description("Apply the store's pending schema migrations once (safe while other instances do the same) and say what was done.")
    .addHelpText('after', examples('switchboard db migrate', 'SWITCHBOARD_DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DATABASE switchboard db migrate'))
    .action(async (opts) => print(await (await import('./db-commands.js')).migrateCommand(configOf(opts))));

  db.command('copy')
    .description("Copy the data dir's SQLite store (accounts, triggers, events, cursors, pending deliveries) into an empty PostgreSQL database, in one transaction.")
    .requiredOption('--to <url>', 'the PostgreSQL database: postgres://USER@HOST:5432/DATABASE (PGPASSWORD keeps the password out of the process list)')
    .option('--data-dir <dir>', 'the data directory of the SQLite store to copy (env SWITCHBOARD_DATA_DIR)')
    .addHelpText('after', `\nSecrets stay encrypted: every instance on the PostgreSQL store needs the key of this data dir.${examples('PGPASSWORD=... switchboard db copy --to postgres://switchboard@db.internal:5432/switchboard')}`)
    .action(async (opts) => print(await (await import('./db-commands.js')).copyCommand(configOf(opts), opts.to)));
}

function triggersCommand(triggers: Command): void {
  withCommon(triggers.command('kinds'))
    .description('Every trigger kind with its config fields, and the filter syntax.')
    .argument('[provider]', 'only this provider\'s kinds: outlook, github or vercel')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard triggers kinds', 'switchboard triggers kinds vercel --json'))
    .action(async (provider: string | undefined, opts) => {
      const { describeKinds, formatKinds } = await import('./triggers/kinds-help.js');
      const kinds = describeKinds(provider === undefined ? undefined : checkProvider(provider));
      if (kinds.length === 0) throw new InputError(`${provider} has no trigger kinds; outlook, github and vercel do.`, 'provider');
      print(opts.json ? JSON.stringify(kinds, null, 2) : formatKinds(kinds));
    });

  withCommon(triggers.command('list'))
    .description('Triggers with their counters (fired, skipped, errors) and last event time.')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard triggers list', 'switchboard triggers list --json'))
    .action(async (opts) => {
      const { formatTriggers, runTriggerTool } = await import('./triggers/commands.js');
      await withConfig(opts, async (config) => {
        const { triggers: list } = (await runTriggerTool(config, 'list', {})) as { triggers: Array<Record<string, unknown>> };
        print(opts.json ? JSON.stringify(list, null, 2) : formatTriggers(list));
      });
    });

  withCommon(triggers.command('add'))
    .description('Start a trigger; its events land in the event log (switchboard events tail prints them).')
    .argument('<kind>', 'e.g. outlook.new_email, github.new_issue, vercel.deployment_failed (switchboard triggers kinds lists them)')
    .option('--account <id-or-label>', 'the account to watch (default: the provider\'s default account)')
    .option('--filter <filter>', 'outlook.new_email: e.g. \'from:*@acme.com AND subject:"invoice"\'')
    .option('--folder <folder>', 'outlook.new_email: folder id or well-known name (default inbox)')
    .option('--interval <seconds>', 'polled kinds: seconds between polls (at least 10; default 60)')
    .option('--backstop <seconds>', 'outlook.new_email with Graph change notifications: seconds between backstop delta polls (at least 10; default 900)')
    .option('--forward-url <url>', 'also POST each event, signed, to this URL')
    .option('--public-url <url>', 'where providers reach the running server, for webhook kinds and Graph change notifications (env SWITCHBOARD_PUBLIC_URL)')
    .option('--config <json>', 'the kind\'s config as a JSON object, e.g. \'{"repo":"owner/name"}\'')
    .option('--json', 'print the created trigger as JSON')
    .addHelpText('after', examples("switchboard triggers add outlook.new_email --filter 'from:*@acme.com AND subject:\"invoice\"'", 'switchboard triggers add github.new_issue --config \'{"repo":"octo/hello"}\'', 'switchboard triggers add outlook.new_email --sandbox --interval 10'))
    .action(async (kind: string, opts) => {
      let extra: Record<string, unknown> = {};
      if (opts.config !== undefined) {
        try {
          extra = JSON.parse(opts.config);
        } catch {
          throw new InputError('--config must be a JSON object, e.g. \'{"folder":"inbox"}\'.', 'config');
        }
        if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw new InputError('--config must be a JSON object, e.g. \'{"folder":"inbox"}\'.', 'config');
      }
      const seconds = (flag: 'interval' | 'backstop') => {
        const value = opts[flag] === undefined ? undefined : Number(opts[flag]);
        if (value !== undefined && !Number.isInteger(value)) throw new InputError(`--${flag} must be a whole number of seconds, not "${opts[flag]}".`, flag);
        return value;
      };
      const interval = seconds('interval');
      const backstop = seconds('backstop');
      const cfg = {
        ...extra,
        ...(opts.filter ? { filter: opts.filter } : {}),
        ...(opts.folder ? { folder: opts.folder } : {}),
        ...(interval !== undefined ? { poll_interval_seconds: interval } : {}),
        ...(backstop !== undefined ? { backstop_interval_seconds: backstop } : {}),
      };
      const { runTriggerTool } = await import('./triggers/commands.js');
      await withConfig(opts, async (config) => {
        const result = (await runTriggerTool(config, 'create', {
          kind,
          ...(opts.account ? { account: opts.account } : {}),
          config: cfg,
          ...(opts.forwardUrl ? { forward_url: opts.forwardUrl } : {}),
        })) as { trigger: { id: string }; next: string; forward_secret?: string };
        if (opts.json) return print(JSON.stringify(result, null, 2));
        print(`Created trigger ${result.trigger.id}. ${result.next}${result.forward_secret ? `\nForward signing secret (shown once): ${result.forward_secret}` : ''}`);
      });
    });

  withCommon(triggers.command('remove'))
    .description('Stop and delete a trigger (and its provider webhook when nothing else uses it).')
    .argument('<id>', 'the trigger id (switchboard triggers list shows them)')
    .addHelpText('after', examples('switchboard triggers remove trg_0123456789abcdef'))
    .action(async (id: string, opts) => {
      const { runTriggerTool } = await import('./triggers/commands.js');
      await withConfig(opts, async (config) => {
        await runTriggerTool(config, 'delete', { id });
        print(`Removed trigger ${id}; it delivers no more events.`);
      });
    });

  withCommon(triggers.command('secret'))
    .description('Store the signing secret of a webhook you set up at the provider yourself.')
    .argument('<id>', 'the trigger id')
    .requiredOption('--secret-stdin', 'read the secret from standard input')
    .addHelpText('after', examples('printf %s "$SECRET" | switchboard triggers secret trg_0123456789abcdef --secret-stdin'))
    .action(async (id: string, opts) => {
      const secret = (await readStdin()).trim();
      if (secret.length < 8) throw new InputError('The secret on standard input is empty or shorter than 8 characters.');
      const { setWebhookSecret } = await import('./triggers/commands.js');
      await withConfig(opts, async (config) => {
        const until = await setWebhookSecret(config, id, secret);
        print(`Stored the webhook secret of trigger ${id}; its deliveries are now verified with it.` + (until ? ` The secret it replaced is still accepted until ${until}.` : ''));
      });
    });
}

function withCommon(command: Command): Command {
  return withStore(command).option('--sandbox', 'use the local stand-in providers and the sandbox store (those of a running serve --sandbox when there is one)');
}

function withStore(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'where the store lives (env SWITCHBOARD_DATA_DIR; default: the platform\'s data folder)')
    .option('--database-url <url>', 'keep the store in this PostgreSQL database, shared by every instance given it (env SWITCHBOARD_DATABASE_URL, which keeps the password out of the process list)');
}

/** Commander's camelCase options as the kebab-case flags loadConfig reads. */
function configOf(opts: Record<string, unknown>): Config {
  const flags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) flags[key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)] = value;
  if (typeof flags['data-dir'] === 'string') flags['data-dir'] = resolve(flags['data-dir']);
  return loadConfig(process.env, flags as Flags);
}

/** Runs a command with its config; with --sandbox, against the sandbox's stand-ins and store. */
async function withConfig(opts: Record<string, unknown>, run: (config: Config) => Promise<void>): Promise<void> {
  const config = configOf(opts);
  if (!config.sandbox) return run(config);
  const { joinSandbox } = await loadSandbox();
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
  const script = process.argv[1] ?? 'dist/cli.js';
  if (/(^|[/\\])switchboard$/.test(script)) return 'switchboard';
  const local = relative(process.cwd(), script);
  if (local === join('dist', 'cli.js')) return 'npx switchboard';
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
    .showHelpAfterError(`(run: ${path} --help)`)
    .configureOutput({ outputError: (text, write) => write(`switchboard: ${text.replace(/^error: /, '')}`) });
  for (const sub of command.commands) configure(sub, `${path} ${sub.name()}`);
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  configure(program, 'switchboard');
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const known = error instanceof InputError || error instanceof AccountError || error instanceof ProviderError;
    say(`switchboard: ${known ? cliWording((error as Error).message) : `unexpected failure: ${(error as Error)?.message ?? error}`}`);
    process.exitCode = error instanceof InputError ? 2 : 1;
  },
).finally(() => {
  // Everything the command opened is closed by now. A connection a library opens again after being ended (postgres.js
  // reconnecting after an outage of the database) must not keep the process from exiting.
  setTimeout(() => process.exit(), 2_000).unref();
});
