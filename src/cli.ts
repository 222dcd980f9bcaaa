#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig, type Config, type Flags } from './config.js';
import { AccountError, InputError, ProviderError } from './errors.js';
import type { Provider } from './store/types.js';
import { VERSION } from './version.js';

// Each command loads its own modules: `serve` must not pay for the connectors, the store or undici before its first answer.
const accounts = () => import('./accounts/commands.js');
const triggers = () => import('./triggers/commands.js');

const HELP = `switchboard ${VERSION}: an MCP server for Outlook, GitHub, Vercel and a sales-intelligence API

Usage:
  switchboard serve [--http] [--host 127.0.0.1] [--port 8765] [--public-url URL] [--sandbox]
                    [--toolsets outlook,sales,github,vercel] [--tools all|discover] [--read-only] [--max-result-tokens N] [--data-dir DIR]
  switchboard accounts add <outlook|sales|github|vercel> [--label L] (--token-stdin | --api-key-stdin) [--team ID] [--groups G,...] [--dialect spec|v2]
  switchboard accounts add <outlook|github> --device [--label L] [--groups G,...]     (sign in with a code on another device)
  switchboard accounts add <outlook|github|vercel> --browser [--label L] [--groups G,...]   (sign in in a browser on this machine)
  switchboard accounts list [--json]
  switchboard accounts remove <id|label>
  switchboard triggers list [--json]
  switchboard triggers add <kind> [--account L] [--filter F] [--folder F] [--interval S] [--forward-url URL] [--config JSON]
  switchboard triggers remove <id>
  switchboard triggers secret <id> --secret-stdin      (a webhook secret you set up at the provider)
  switchboard events tail [--trigger ID] [--json] [--exec CMD] [--consumer NAME]
  switchboard secrets rotate [--force]      (re-encrypts every stored secret under a new key: a new key file,
                                             or SWITCHBOARD_NEW_SECRET_KEY when set)

serve speaks MCP over stdio; with --http, Streamable HTTP at /mcp. --sandbox runs local stand-in providers
with sample accounts. Secrets are read from standard input, never from arguments.`;

const OPTIONS = {
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  'public-url': { type: 'string' },
  sandbox: { type: 'boolean' },
  toolsets: { type: 'string' },
  tools: { type: 'string' },
  'read-only': { type: 'boolean' },
  'max-result-tokens': { type: 'string' },
  'data-dir': { type: 'string' },
  'log-level': { type: 'string' },
  label: { type: 'string' },
  team: { type: 'string' },
  groups: { type: 'string' },
  dialect: { type: 'string' },
  'token-stdin': { type: 'boolean' },
  device: { type: 'boolean' },
  browser: { type: 'boolean' },
  'api-key-stdin': { type: 'boolean' },
  'secret-stdin': { type: 'boolean' },
  json: { type: 'boolean' },
  account: { type: 'string' },
  filter: { type: 'string' },
  folder: { type: 'string' },
  interval: { type: 'string' },
  'forward-url': { type: 'string' },
  config: { type: 'string' },
  trigger: { type: 'string' },
  exec: { type: 'string' },
  consumer: { type: 'string' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new InputError(`${(error as Error).message}. Run switchboard --help for the usage.`);
  }
  const { values, positionals } = parsed;
  if (values.version) return print(VERSION);
  const [command, sub, arg] = positionals;
  if (values.help || !command) return print(HELP);
  const config = loadConfig(process.env, values as Flags);

  if (command === 'serve') {
    const { serve } = await import('./serve.js');
    const running = await serve(config, { stdin: process.stdin, stdout: process.stdout });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.close());
    await running.closed;
    return 0;
  }
  if (command === 'accounts') {
    const { addAccount, checkProvider, formatAccounts, listAccounts, removeAccount } = await accounts();
    if (sub === 'list') {
      const list = await listAccounts(config);
      return print(values.json ? JSON.stringify(list, null, 2) : formatAccounts(list));
    }
    if (sub === 'remove') {
      if (!arg) throw new InputError('Name the account to remove: switchboard accounts remove <id|label>.');
      const removed = await removeAccount(config, arg);
      return print(`Removed ${removed.provider} account "${removed.label}" (${removed.id}).`);
    }
    if (sub === 'add') {
      const provider = checkProvider(arg);
      if (values.device || values.browser) return signInCommand(config, provider, values);
      const wantsKey = provider === 'sales';
      if (wantsKey ? !values['api-key-stdin'] : !values['token-stdin']) {
        throw new InputError(
          `Pipe the ${wantsKey ? 'API key' : 'token'} on standard input: echo "$SECRET" | switchboard accounts add ${provider} ${wantsKey ? '--api-key-stdin' : '--token-stdin'}` +
            (wantsKey ? '' : `, or sign in: switchboard accounts add ${provider} ${provider === 'vercel' ? '--browser' : '--device'}`),
        );
      }
      const secretText = (await readStdin()).trim();
      if (!secretText) throw new InputError(`Standard input was empty: pipe the ${wantsKey ? 'API key' : 'token'} into the command.`);
      if (/\s/.test(secretText)) throw new InputError('The secret on standard input contains white space; pipe exactly one token or key.');
      const account = await addAccount(config, {
        provider,
        label: values.label,
        teamId: values.team,
        groups: values.groups?.split(',').map((g) => g.trim()).filter(Boolean),
        dialect: values.dialect,
        secret: wantsKey ? { kind: 'api_key', apiKey: secretText } : { kind: 'token', token: secretText },
      });
      return print(
        `Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''} as ${account.id}${account.isDefault ? ', the default' : ''}.`,
      );
    }
    throw new InputError(`Unknown accounts command "${sub ?? ''}": use add, list or remove.`);
  }
  if (command === 'triggers') return triggersCommand(config, sub, arg, values);
  if (command === 'secrets' && sub === 'rotate') {
    const { rotateSecrets } = await import('./store/rotate.js');
    const r = await rotateSecrets({ dataDir: config.dataDir, secretKey: config.secretKey, newSecretKey: config.newSecretKey, force: values.force });
    const counts = `Re-encrypted ${r.accounts} account, ${r.triggers} trigger and ${r.hooks} webhook secret(s) under a new key, in one transaction.`;
    if (r.newKeyIn === 'keyFile') return print(`${counts}\nThe new key is in ${r.keyFile} (the old key is gone); keep a backup of that file.`);
    return print(
      `${counts}\nSet SWITCHBOARD_SECRET_KEY to the value of SWITCHBOARD_NEW_SECRET_KEY before starting Switchboard again.` +
        (r.staleKeyFile ? `\nThe key file ${r.staleKeyFile} holds the old key and is no longer used: delete it once SWITCHBOARD_SECRET_KEY is set.` : ''),
    );
  }
  if (command === 'events' && sub === 'tail') {
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    const { tailEvents } = await triggers();
    await tailEvents(config, {
      triggerId: values.trigger,
      json: values.json ?? false,
      exec: values.exec,
      consumer: values.consumer,
      write: (line) => process.stdout.write(line + '\n'),
      warn: (line) => process.stderr.write(line + '\n'),
      signal: stop.signal,
    });
    return 0;
  }
  throw new InputError(`Unknown command "${[command, sub].filter(Boolean).join(' ')}". Run switchboard --help.`);
}

async function signInCommand(config: Config, provider: Provider, values: Record<string, any>): Promise<number> {
  if (values.device && values.browser) throw new InputError('Choose one way to sign in: --device or --browser.');
  if (values['token-stdin'] || values['api-key-stdin']) throw new InputError('--device and --browser sign in; they do not read a token from standard input.');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const { signInFromCli } = await import('./accounts/cli-sign-in.js');
  const account = await signInFromCli(config, provider, {
    mode: values.device ? 'device' : 'browser',
    label: values.label,
    groups: values.groups?.split(',').map((g: string) => g.trim()).filter(Boolean),
    say: (line) => process.stderr.write(line + '\n'),
    signal: stop.signal,
  });
  const groups = account.groups.length ? ` with ${account.groups.join(', ')}` : '';
  return print(`Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''} as ${account.id}${groups}${account.isDefault ? ', the default' : ''}.`);
}

async function triggersCommand(config: Config, sub: string | undefined, arg: string | undefined, values: Record<string, any>): Promise<number> {
  const { formatTriggers, runTriggerTool, setWebhookSecret } = await triggers();
  if (sub === 'list') {
    const { triggers } = (await runTriggerTool(config, 'list', {})) as { triggers: Array<Record<string, unknown>> };
    return print(values.json ? JSON.stringify(triggers, null, 2) : formatTriggers(triggers));
  }
  if (sub === 'remove') {
    if (!arg) throw new InputError('Name the trigger to remove: switchboard triggers remove <id>.');
    await runTriggerTool(config, 'delete', { id: arg });
    return print(`Removed trigger ${arg}; it delivers no more events.`);
  }
  if (sub === 'secret') {
    if (!arg || !values['secret-stdin']) throw new InputError('Pipe the secret in: printf %s "$SECRET" | switchboard triggers secret <id> --secret-stdin');
    const secret = (await readStdin()).trim();
    if (secret.length < 8) throw new InputError('The secret on standard input is empty or shorter than 8 characters.');
    await setWebhookSecret(config, arg, secret);
    return print(`Stored the webhook secret of trigger ${arg}; its deliveries are now verified with it.`);
  }
  if (sub === 'add') {
    if (!arg) throw new InputError('Name the trigger kind: switchboard triggers add outlook.new_email.');
    let extra: Record<string, unknown> = {};
    if (values.config) {
      try {
        extra = JSON.parse(values.config);
      } catch {
        throw new InputError('--config must be a JSON object, e.g. \'{"folder":"inbox"}\'.');
      }
    }
    const interval = values.interval === undefined ? undefined : Number(values.interval);
    const cfg = { ...extra, ...(values.filter ? { filter: values.filter } : {}), ...(values.folder ? { folder: values.folder } : {}), ...(interval !== undefined ? { poll_interval_seconds: interval } : {}) };
    const result = (await runTriggerTool(config, 'create', {
      kind: arg,
      ...(values.account ? { account: values.account } : {}),
      config: cfg,
      ...(values['forward-url'] ? { forward_url: values['forward-url'] } : {}),
    })) as { trigger: { id: string }; next: string; forward_secret?: string };
    if (values.json) return print(JSON.stringify(result, null, 2));
    return print(`Created trigger ${result.trigger.id}. ${result.next}${result.forward_secret ? `\nForward signing secret (shown once): ${result.forward_secret}` : ''}`);
  }
  throw new InputError(`Unknown triggers command "${sub ?? ''}": use add, list, remove or secret.`);
}

function print(text: string): number {
  process.stdout.write(text + '\n');
  return 0;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new InputError('Standard input is a terminal: pipe the secret in, for example from a password manager.');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const known = error instanceof InputError || error instanceof AccountError || error instanceof ProviderError;
    process.stderr.write(`switchboard: ${known ? (error as Error).message : `unexpected failure: ${(error as Error)?.message ?? error}`}\n`);
    process.exitCode = error instanceof InputError ? 2 : 1;
  },
);
