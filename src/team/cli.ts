import type { Command } from 'commander';
import { examples, note, type CliKit } from '../cli-text.js';
import type { Config } from '../config.js';
import { DEFAULT_TOKEN_EXPIRY, DEFAULT_TOKEN_SCOPE, FULL_SCOPE, READ_SCOPE } from './scopes.js';

/** With --sandbox, the sandbox's own store, which holds its sample people (sbx-octocat, avery@contoso.example). */
const onStore = (cli: CliKit, opts: Record<string, unknown>, run: (config: Config) => Promise<void>) => cli.withConfig(opts, run, { standIns: false, people: true });

/** `switchboard users ...`: the people who signed in to a team server. Their modules load only when a command runs. */
export function usersCommand(users: Command, cli: CliKit): void {
  users.addHelpText('after', examples('switchboard users list', 'switchboard users list --sandbox'));
  cli
    .withCommon(users.command('list'))
    .description('Everyone who signed in: login, address, provider, role, whether disabled, when last seen.')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard users list', 'switchboard users list --json'))
    .action(async (opts) => {
      const { formatUsers, listUsers } = await import('./commands.js');
      await onStore(cli, opts, async (config) => {
        const list = await listUsers(config);
        cli.print(opts.json ? JSON.stringify(list, null, 2) : formatUsers(list));
      });
    });
  cli
    .withCommon(users.command('show'))
    .description("What a person has: their accounts, the accounts shared with them, their triggers; never a secret or an event's content.")
    .argument('<user>', 'id, login or address (switchboard users list shows them)')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard users show ada@example.com'))
    .action(async (ref: string, opts) => {
      const { formatHoldings, userHoldings } = await import('./holdings.js');
      await onStore(cli, opts, async (config) => {
        const holdings = await userHoldings(config, ref);
        cli.print(opts.json ? JSON.stringify(holdings, null, 2) : formatHoldings(holdings));
      });
    });
  const change = (name: 'disable' | 'enable' | 'remove', description: string, done: string) =>
    cli
      .withCommon(users.command(name))
      .description(description)
      .argument('<user>', 'id, login or address (switchboard users list shows them)')
      .addHelpText('after', examples(`switchboard users ${name} ada@example.com`))
      .action(async (ref: string, opts) => {
        const { removeUser, setUserDisabled } = await import('./commands.js');
        await onStore(cli, opts, async (config) => {
          const { user, tokens } = name === 'remove' ? await removeUser(config, ref) : await setUserDisabled(config, ref, name === 'disable');
          const gone = tokens ? `; ${tokens} personal access token(s) ${name === 'remove' ? 'deleted' : 'revoked'}` : '';
          cli.print(`${done.replace('%s', user.login)}${gone} (${user.id}).`);
        });
      });
  change(
    'disable',
    'Stop a person: their tokens end at once (sign-in grants and tokens deleted, personal access tokens revoked), their page sessions end, their triggers stop, and they cannot sign in again until enabled.',
    'Disabled %s: their tokens no longer work',
  );
  change('enable', 'Let a disabled person sign in again and run their triggers again; the tokens and sessions that disabling ended stay ended.', 'Enabled %s');
  change('remove', 'Forget a person and what was theirs: accounts, triggers, events and personal access tokens are deleted; if still allowed, signing in again makes them anew.', 'Removed %s');
}

/** `switchboard tokens ...`: personal access tokens, for agents that cannot sign in in a browser. */
export function tokensCommand(tokens: Command, cli: CliKit): void {
  tokens.addHelpText('after', examples('switchboard tokens create --user ada@example.com', 'switchboard tokens create --user sbx-octocat --sandbox', 'switchboard tokens list'));
  cli
    .withCommon(tokens.command('create'))
    .description('Make a token that stands for a person, for an agent that cannot sign in: printed once on standard output, stored only as a hash.')
    .requiredOption('--user <user>', 'whose token: id, login or address of someone who signed in (switchboard users list)')
    .option('--scope <scope>', `${FULL_SCOPE} (every tool) or ${READ_SCOPE} (only tools that change nothing)`, DEFAULT_TOKEN_SCOPE)
    .option('--expires <duration>', 'how long it works: 12h, 30d, 8w, ... at most 365d', DEFAULT_TOKEN_EXPIRY)
    .option('--name <text>', 'what the token is for, shown by tokens list')
    .addHelpText(
      'after',
      note('The agent sends it as Authorization: Bearer <token> to <public URL>/mcp of serve --http --team.') +
        examples(
          'switchboard tokens create --user ada@example.com --name "nightly triage"',
          'TOKEN=$(switchboard tokens create --user ada --scope switchboard --expires 30d)',
          'TOKEN=$(switchboard tokens create --user sbx-octocat --sandbox)',
        ),
    )
    .action(async (opts) => {
      const { createToken } = await import('./token-commands.js');
      await onStore(cli, opts, async (config) => {
        const { token, record, user } = await createToken(config, opts);
        cli.say(
          `Created ${record.id}${record.name ? ` ("${record.name}")` : ''} for ${user.login} (${user.id}): scope ${record.scope}, expires ${record.expiresAt.slice(0, 16).replace('T', ' ')} UTC.\n` +
            'This is the only time the token is shown; the agent sends it as Authorization: Bearer <token>.',
        );
        cli.print(token);
      });
    });

  cli
    .withCommon(tokens.command('list'))
    .description('Personal access tokens (never the tokens themselves): id, name, person, scope, status, created, expires, last used, revoked.')
    .option('--user <user>', 'only this person\'s: id, login or address')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard tokens list', 'switchboard tokens list --user ada --json'))
    .action(async (opts) => {
      const { formatTokens, listTokens } = await import('./token-commands.js');
      await onStore(cli, opts, async (config) => {
        const list = await listTokens(config, { user: opts.user });
        cli.print(opts.json ? JSON.stringify(list, null, 2) : formatTokens(list));
      });
    });

  cli
    .withCommon(tokens.command('revoke'))
    .description('Stop a personal access token at once; it stays listed as revoked.')
    .argument('<id>', 'the token\'s id, pat_... (switchboard tokens list shows them)')
    .addHelpText('after', examples('switchboard tokens revoke pat_0123456789abcdef'))
    .action(async (id: string, opts) => {
      const { revokeToken } = await import('./token-commands.js');
      await onStore(cli, opts, async (config) => {
        const { token, already } = await revokeToken(config, id);
        const at = token.revokedAt!.slice(0, 16).replace('T', ' ');
        cli.print(already ? `${token.id} was already revoked (${at} UTC).` : `Revoked ${token.id}; it no longer works.`);
      });
    });
}

/** `switchboard accounts share|unshare`: team mode's explicit grants of the operator's accounts. */
export function sharingCommands(accounts: Command, cli: CliKit): void {
  for (const verb of ['share', 'unshare'] as const) {
    cli.withCommon(accounts.command(verb))
      .description(
        verb === 'share'
          ? 'Team mode: let a person (id, login or address), or everyone, use one of your accounts in their tools and triggers, never see its secret.'
          : 'Team mode: take back an account shared with a person or with everyone.',
      )
      .argument('<id-or-label>')
      .requiredOption('--with <person>', 'a person who signed in (id, login or address), or "everyone"')
      .addHelpText('after', examples(`switchboard accounts ${verb} github-bot --with ada@example.com`, `switchboard accounts ${verb} github-bot --with everyone`))
      .action(async (ref: string, opts) => {
        const sharing = await import('./sharing.js');
        await onStore(cli, opts, async (config) => {
          const result = await (verb === 'share' ? sharing.shareAccount : sharing.unshareAccount)(config, ref, opts.with);
          cli.print(sharing.sharingLine(verb, result));
        });
      });
  }
}
