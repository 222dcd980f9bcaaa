import { Option, type Command } from 'commander';
import { examples, type CliKit } from '../cli-text.js';
import { checkProvider, type Config } from '../config.js';
import { InputError } from '../errors.js';
import { providerRecord } from '../providers.js';
import { PROVIDERS, type Provider } from '../store/types.js';

/** `switchboard accounts ...`: connect, list, share and remove accounts. Their modules load only when a command runs. */
export function accountsCommand(accounts: Command, cli: CliKit): void {
  const { withCommon, withConfig, print } = cli;
  withCommon(accounts.command('add'))
    .description('Connect an account: pipe a token or API key on stdin, or sign in with --device or --browser. The provider is asked who it belongs to first; nothing is stored if it refuses.')
    .argument('<provider>', PROVIDERS.join(' | '))
    .option('--label <label>', 'a name for the account (default: its identity)')
    .option('--token-stdin', 'read an access token from standard input (outlook, github, vercel)')
    .option('--api-key-stdin', 'read an API key from standard input (sales)')
    .option('--device', 'sign in with a code on any device (outlook, github)')
    .option('--browser', 'sign in in a browser on this machine (outlook, github, vercel)')
    .option('--team <id-or-slug>', 'vercel: the team whose resources the calls use')
    .option('--base-url <url>', "the account's own API host, e.g. GitHub Enterprise Server (https://HOST/api/v3) or a national cloud (https://graph.microsoft.us/v1.0); with --token-stdin")
    .option('--groups <list>', 'outlook: permission groups, e.g. mail,calendar')
    .addOption(new Option('--dialect <dialect>', 'sales: the API dialect (default: v2 when the sales base URL is api.lusha.com, else spec)').choices(['spec', 'v2']))
    .addHelpText('after', examples('printf %s "$GITHUB_TOKEN" | switchboard accounts add github --token-stdin', 'switchboard accounts add outlook --device --groups mail,calendar --label work', 'printf %s "$SALES_KEY" | switchboard accounts add sales --api-key-stdin', 'switchboard accounts add github --sandbox --token-stdin < token.txt', 'printf %s "$GHES_TOKEN" | switchboard accounts add github --base-url https://ghe.example.com/api/v3 --label work --token-stdin'))
    .action(async (providerName: string, opts) => {
      const provider = checkProvider(providerName);
      await withConfig(opts, (config) => addAccountCommand(cli, config, provider, opts));
    });

  withCommon(accounts.command('list'))
    .description('List connected accounts (never their secrets).')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard accounts list', 'switchboard accounts list --sandbox --json'))
    .action(async (opts) => {
      const { formatAccounts, listAccounts } = await import('./commands.js');
      const { describeAccount } = await import('./tools.js');
      await withConfig(opts, async (config) => {
        const list = await listAccounts(config);
        print(opts.json ? JSON.stringify(list.map(describeAccount), null, 2) : formatAccounts(list));
      });
    });

  withCommon(accounts.command('remove'))
    .description('Remove an account by id or label; name the provider when a label is used at several.')
    .usage('[options] [provider] <id|label>')
    .argument('<id-label-or-provider>')
    .argument('[id-or-label]')
    .addHelpText('after', examples('switchboard accounts remove work', 'switchboard accounts remove github sandbox', 'switchboard accounts remove acc_0123456789abcdef'))
    .action(async (first: string, second: string | undefined, opts) => {
      const provider = second === undefined ? undefined : checkProvider(first);
      const { removeAccount } = await import('./commands.js');
      await withConfig(opts, async (config) => {
        const removed = await removeAccount(config, second ?? first, provider);
        print(`Removed ${removed.provider} account "${removed.label}" (${removed.id}).`);
      });
    });
}

async function addAccountCommand(cli: CliKit, config: Config, provider: Provider, opts: Record<string, any>): Promise<void> {
  const { print, say, readStdin } = cli;
  const groups = opts.groups?.split(',').map((g: string) => g.trim()).filter(Boolean);
  if (opts.device || opts.browser) {
    if (opts.device && opts.browser) throw new InputError('Choose one way to sign in: --device or --browser.');
    if (opts.tokenStdin || opts.apiKeyStdin) throw new InputError('--device and --browser sign in; they do not read a token from standard input.');
    if (opts.team) throw new InputError('--team goes with --token-stdin; a Vercel sign-in takes its team from where the integration is installed.', 'team');
    if (opts.baseUrl !== undefined) throw new InputError(`--base-url goes with --token-stdin (a sign-in reaches only the provider's own host): create a token at that host and pipe it to switchboard accounts add ${provider} --base-url URL --token-stdin.`, 'base-url');
    const { signInFromCli } = await import('./cli-sign-in.js');
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    const account = await signInFromCli(config, provider, { mode: opts.device ? 'device' : 'browser', label: opts.label, groups, say, signal: stop.signal });
    const granted = account.groups.length ? ` with ${account.groups.join(', ')}` : '';
    return print(`Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''} as ${account.id}${granted}${account.isDefault ? ', the default' : ''}.`);
  }
  const record = providerRecord(provider);
  const wantsKey = record.credential === 'api_key';
  if (wantsKey ? !opts.apiKeyStdin : !opts.tokenStdin) {
    throw new InputError(
      `Pipe the ${wantsKey ? 'API key' : 'token'} on standard input: printf %s "$SECRET" | switchboard accounts add ${provider} ${wantsKey ? '--api-key-stdin' : '--token-stdin'}` +
        (wantsKey ? '' : `, or sign in: switchboard accounts add ${provider} ${record.oauth?.paths.device ? '--device' : '--browser'}`),
    );
  }
  if (wantsKey ? opts.tokenStdin : opts.apiKeyStdin) throw new InputError(`${provider} takes ${wantsKey ? '--api-key-stdin' : '--token-stdin'}, not ${wantsKey ? '--token-stdin' : '--api-key-stdin'}.`);
  const { accountBaseUrl } = await import('./base-url.js');
  const baseUrl = opts.baseUrl === undefined ? undefined : accountBaseUrl(provider, opts.baseUrl);
  const secretText = (await readStdin()).trim();
  if (!secretText) throw new InputError(`Standard input was empty: pipe the ${wantsKey ? 'API key' : 'token'} into the command.`);
  if (/\s/.test(secretText)) throw new InputError('The secret on standard input contains white space; pipe exactly one token or key.');
  const { addAccount } = await import('./commands.js');
  const account = await addAccount(config, {
    provider,
    label: opts.label,
    teamId: opts.team,
    groups,
    dialect: opts.dialect,
    baseUrl,
    secret: wantsKey ? { kind: 'api_key', apiKey: secretText } : { kind: 'token', token: secretText },
  });
  const at = account.baseUrl ? ` at ${account.baseUrl}` : '';
  print(`Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''}${at} as ${account.id}${account.isDefault ? ', the default' : ''}.`);
}
