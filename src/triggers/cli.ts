import type { Command } from 'commander';
import { examples, type CliKit } from '../cli-text.js';
import { checkProvider } from '../config.js';
import { AccountError, InputError } from '../errors.js';
import { didYouMean } from '../suggest.js';

/** `switchboard triggers ...`: standing requests. Their modules load only when a command runs. */
export function triggersCommand(triggers: Command, cli: CliKit): void {
  const { withCommon, withConfig, print, readStdin } = cli;
  triggers.addHelpText('after', examples('switchboard triggers kinds github', "switchboard triggers add github.new_issue --config '{\"repo\":\"octo/hello\"}'", 'switchboard triggers list'));

  withCommon(triggers.command('kinds'))
    .description('Every trigger kind with its config fields, and the filter syntax.')
    .argument('[provider]', "only this provider's kinds: outlook, github or vercel")
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard triggers kinds', 'switchboard triggers kinds vercel --json'))
    .action(async (provider: string | undefined, opts) => {
      const { describeKinds, formatKinds } = await import('./kinds-help.js');
      const kinds = describeKinds(provider === undefined ? undefined : checkProvider(provider));
      if (kinds.length === 0) throw new InputError(`${provider} has no trigger kinds; outlook, github and vercel do.`, 'provider');
      print(opts.json ? JSON.stringify(kinds, null, 2) : formatKinds(kinds));
    });

  withCommon(triggers.command('list'))
    .description('Triggers with their counters (fired, skipped, errors) and last event time.')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard triggers list', 'switchboard triggers list --json'))
    .action(async (opts) => {
      const { formatTriggers, runTriggerTool } = await import('./commands.js');
      await withConfig(opts, async (config) => {
        const { triggers: list } = (await runTriggerTool(config, 'list', {})) as { triggers: Array<Record<string, unknown>> };
        print(opts.json ? JSON.stringify(list, null, 2) : formatTriggers(list));
      });
    });

  withCommon(triggers.command('add'))
    .description('Start a trigger; its events land in the event log (switchboard events tail prints them).')
    .argument('<kind>', 'e.g. outlook.new_email, github.new_issue, vercel.deployment_failed (switchboard triggers kinds lists them)')
    .option('--account <id-or-label>', "the account to watch (default: the provider's default account)")
    .option('--filter <filter>', 'outlook.new_email: e.g. \'from:*@acme.com AND subject:"invoice"\'')
    .option('--folder <folder>', 'outlook.new_email: folder id or well-known name (default inbox)')
    .option('--interval <seconds>', 'polled kinds: seconds between polls (at least 10; default 60)')
    .option('--backstop <seconds>', 'outlook.new_email with Graph change notifications: seconds between backstop delta polls (at least 10; default 900)')
    .option('--forward-url <url>', 'also POST each event, signed, to this URL')
    .option('--public-url <url>', 'where providers reach the running server, for webhook kinds and Graph change notifications (env SWITCHBOARD_PUBLIC_URL)')
    .option('--config <json>', 'the kind\'s config as a JSON object, e.g. \'{"repo":"owner/name"}\'')
    .option('--json', 'print the created trigger as JSON')
    .addHelpText(
      'after',
      examples(
        "switchboard triggers add outlook.new_email --filter 'from:*@acme.com AND subject:\"invoice\"'",
        'switchboard triggers add github.new_issue --config \'{"repo":"octo/hello"}\'',
        'switchboard triggers add outlook.new_email --sandbox --interval 10',
      ),
    )
    .action(async (kind: string, opts) => {
      const { TRIGGER_KINDS } = await import('./kinds.js');
      checkKind(kind, [...TRIGGER_KINDS.keys()]);
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
      const flagged: Record<string, [string, unknown]> = {
        filter: ['--filter', opts.filter || undefined],
        folder: ['--folder', opts.folder || undefined],
        poll_interval_seconds: ['--interval', interval],
        backstop_interval_seconds: ['--backstop', backstop],
      };
      const cfg = { ...extra, ...Object.fromEntries(Object.entries(flagged).filter(([, [, v]]) => v !== undefined).map(([k, [, v]]) => [k, v])) };
      const flagOf = (field: string) => (flagged[field]?.[1] !== undefined ? flagged[field]![0] : `--config "${field}"`);
      const { runTriggerTool } = await import('./commands.js');
      await withConfig(opts, async (config) => {
        const args = { kind, ...(opts.account ? { account: opts.account } : {}), config: cfg, ...(opts.forwardUrl ? { forward_url: opts.forwardUrl } : {}) };
        const result = (await runTriggerTool(config, 'create', args).catch((error: unknown) => {
          throw inFlags(error, kind, flagOf);
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
      const { runTriggerTool } = await import('./commands.js');
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
      const { setWebhookSecret } = await import('./commands.js');
      await withConfig(opts, async (config) => {
        const until = await setWebhookSecret(config, id, secret);
        print(`Stored the webhook secret of trigger ${id}; its deliveries are now verified with it.` + (until ? ` The secret it replaced is still accepted until ${until}.` : ''));
      });
    });
}

/** A kind that is not one is refused before anything starts, with the nearest kind rather than all of them. */
function checkKind(kind: string, kinds: string[]): void {
  if (kinds.includes(kind)) return;
  const near = didYouMean(kind, kinds);
  throw new InputError(`Unknown trigger kind "${kind}".${near} switchboard triggers kinds lists all ${kinds.length} kinds and their config.`, 'kind');
}

/**
 * The trigger tool names its input's fields (config.poll_interval_seconds); the command line names the flag each came
 * from (--interval), or the field of --config.
 */
function inFlags(error: unknown, kind: string, flagOf: (field: string) => string): unknown {
  if (!(error instanceof InputError || error instanceof AccountError)) return error;
  const named: Record<string, string> = { account: '--account', forward_url: '--forward-url', config: '--config', kind: '<kind>' };
  const nameOf = (path: string) => named[path] ?? (path.startsWith('config.') ? flagOf(path.split('.')[1]!) : path);
  error.message = error.message
    .replace(/^- config: unknown field\(s\) (.*); remove them$/gm, (_line, keys: string) => `- ${kind} takes no ${keys.split(', ').map((k) => flagOf(JSON.parse(k) as string)).join(', ')}; leave it out`)
    .replace(/^- ([a-z_]+(?:\.[a-z_]+)*): /gm, (_line, path: string) => `- ${nameOf(path)}: `)
    .replace(/"(account|forward_url)"/g, (_quoted, field: string) => named[field]!);
  return error;
}

/** `switchboard events ...`: the event log. */
export function eventsCommand(events: Command, cli: CliKit): void {
  const { withCommon, withConfig, print, say } = cli;
  events.addHelpText('after', examples('switchboard events tail --json', 'switchboard events failed'));

  withCommon(events.command('tail'))
    .description('Print events as they are committed; with --exec, run a command once per event.')
    .option('--trigger <id>', "only this trigger's events")
    .option('--json', 'one JSON object per line (NDJSON)')
    .option('--exec <command>', 'run this shell command per event, the event JSON on its stdin; resumes where it stopped')
    .option('--consumer <name>', 'name of the cursor --exec keeps (default: derived from the command and trigger)')
    .option('--max-attempts <n>', '--exec: runs of a failing command (backing off from 1 s to 5 min) before the event is set aside as failed (default 10)')
    .addHelpText('after', examples('switchboard events tail', 'switchboard events tail --trigger trg_0123456789abcdef --json', "switchboard events tail --exec 'my-agent --stdin' --max-attempts 5"))
    .action(async (opts) => {
      const { tailEvents } = await import('./tail.js');
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
    .option('--consumer <name>', "only this consumer's")
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard events failed', 'switchboard events failed --consumer my-agent --json'))
    .action(async (opts) => {
      const { eventsFailed } = await import('./failed.js');
      await withConfig(opts, async (config) => print(await eventsFailed(config, { consumer: opts.consumer, json: opts.json })));
    });

  withCommon(events.command('retry'))
    .description('Run failed events again: the tail --exec of their consumer runs them before new events.')
    .argument('[event-id]', 'the event to run again (switchboard events failed lists them)')
    .option('--all', 'every failed event')
    .option('--consumer <name>', 'only for this consumer')
    .addHelpText('after', examples('switchboard events retry 42', 'switchboard events retry --all --consumer my-agent'))
    .action(async (eventId: string | undefined, opts) => {
      const { eventsRetry } = await import('./failed.js');
      await withConfig(opts, async (config) => print(await eventsRetry(config, { eventId, all: opts.all, consumer: opts.consumer })));
    });
}
