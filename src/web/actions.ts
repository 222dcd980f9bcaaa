import { checkProvider, connectAccount } from '../accounts/commands.js';
import type { Config } from '../config.js';
import { InputError, toErrorResult } from '../errors.js';
import type { Logger } from '../log.js';
import type { Provider } from '../store/types.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { triggersCreate, triggersDelete } from '../triggers/tools.js';
import { field, type Form } from './respond.js';
import type { Flash } from './session.js';
import type { SignInApi } from '../accounts/sign-in.js';

export interface WebDeps {
  /** The server's own tool dependencies: the open store, the trigger runtime, base URLs. */
  deps: ToolDeps;
  /** The running configuration (the page reads SWITCHBOARD_HTTP_TOKEN and the public URL from it). */
  config: Config;
  logger: Logger;
  /** The OAuth sign-in, when not the server's own (ToolDeps.signIn). */
  signIn?: () => Promise<SignInApi | undefined>;
}

/** The message an error shows on the page: the one error text of the tools, with any submitted secret removed. */
export function errorText(error: unknown, w: WebDeps, ...secrets: string[]): string {
  const content = toErrorResult(error, w.deps.redactor).content[0] as { text: string };
  let text = content.text;
  for (const s of secrets) if (s) text = text.split(s).join('[redacted]');
  return text;
}

function context(w: WebDeps): CallContext {
  return { deps: w.deps, signal: AbortSignal.timeout(60_000), progress: async () => undefined };
}

/** Adds a token or API key as `switchboard accounts add` does (connectAccount): the provider is asked who it is, then it is stored. */
export async function addCredential(w: WebDeps, form: Form): Promise<Flash> {
  const secret = field(form, 'secret');
  try {
    const provider = checkProvider(field(form, 'provider'));
    const isKey = provider === 'sales';
    if (!secret) throw new InputError(`Paste the ${isKey ? 'API key' : 'token'}.`, 'secret');
    if (/\s/.test(secret)) throw new InputError(`The ${isKey ? 'API key' : 'token'} contains white space; paste exactly one.`, 'secret');
    const groups = form.get('groups')?.map((g) => g.trim()).filter(Boolean);
    const { store, baseUrls, dispatcher, redactor } = w.deps;
    const account = await connectAccount({ store, baseUrls, dispatcher, redactor }, {
      provider,
      label: field(form, 'label') || undefined,
      teamId: provider === 'vercel' ? field(form, 'team') || undefined : undefined,
      groups: provider === 'outlook' ? groups : undefined,
      dialect: provider === 'sales' ? field(form, 'dialect') || undefined : undefined,
      secret: isKey ? { kind: 'api_key', apiKey: secret } : { kind: 'token', token: secret },
    });
    w.logger.info('account added from the Integrations page', { provider, account: account.id });
    return {
      kind: 'ok',
      text: `Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''}${account.isDefault ? ', the default' : ''}.`,
    };
  } catch (error) {
    return { kind: 'error', text: `Not added: ${errorText(error, w, secret)}` };
  }
}

export async function renameAccount(w: WebDeps, form: Form): Promise<Flash> {
  try {
    const before = await w.deps.store.accounts.find(field(form, 'id'));
    if (!before) throw new InputError('That account no longer exists.', 'id');
    const after = await w.deps.store.accounts.rename(before.id, field(form, 'label'));
    return { kind: 'ok', text: `Renamed "${before.label}" to "${after.label}".` };
  } catch (error) {
    return { kind: 'error', text: `Not renamed: ${errorText(error, w)}` };
  }
}

export async function makeDefault(w: WebDeps, form: Form): Promise<Flash> {
  try {
    const account = await w.deps.store.accounts.find(field(form, 'id'));
    if (!account) throw new InputError('That account no longer exists.', 'id');
    await w.deps.store.accounts.setDefault(account.id);
    return { kind: 'ok', text: `"${account.label}" is now the default ${account.provider} account.` };
  } catch (error) {
    return { kind: 'error', text: `Not changed: ${errorText(error, w)}` };
  }
}

/** Deletes the account's triggers through triggers_delete first (so provider webhooks are removed), then the account. */
export async function removeAccount(w: WebDeps, form: Form): Promise<Flash> {
  try {
    if (field(form, 'confirm') !== 'yes') throw new InputError('Removing an account needs the confirmation step.', 'confirm');
    const account = await w.deps.store.accounts.find(field(form, 'id'));
    if (!account) throw new InputError('That account no longer exists.', 'id');
    const notes: string[] = [];
    for (const t of await w.deps.store.triggers.list({ accountId: account.id })) {
      const result = (await triggersDelete.call({ id: t.id }, context(w))) as { note?: string };
      if (result.note) notes.push(result.note);
    }
    await w.deps.store.accounts.remove(account.id);
    return { kind: 'ok', text: [`Removed ${account.provider} account "${account.label}".`, ...notes].join(' ') };
  } catch (error) {
    return { kind: 'error', text: `Not removed: ${errorText(error, w)}` };
  }
}

const SIMPLE_FIELDS: Record<Provider, string[]> = { outlook: ['folder', 'filter', 'mailbox'], github: ['repo'], vercel: ['project'], sales: [] };

/** triggers_create with the form's kind, account and config (JSON plus the simple fields of the kind's provider). */
export async function createTrigger(w: WebDeps, form: Form): Promise<Flash> {
  try {
    const kind = field(form, 'kind');
    const provider = w.deps.triggers?.kinds.get(kind)?.connector;
    let config: Record<string, unknown> = {};
    const json = field(form, 'config');
    if (json) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(json);
      } catch {
        throw new InputError('More config must be a JSON object, e.g. {"poll_interval_seconds": 60}.', 'config');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError('More config must be a JSON object.', 'config');
      config = parsed as Record<string, unknown>;
    }
    for (const name of provider ? SIMPLE_FIELDS[provider] : []) {
      const value = field(form, name);
      if (value) config[name] = value;
    }
    const account = field(form, 'account');
    const result = (await triggersCreate.call({ kind, ...(account ? { account } : {}), config }, context(w))) as {
      trigger: { id: string };
      next: string;
    };
    return { kind: 'ok', text: `Created trigger ${result.trigger.id}. ${result.next}` };
  } catch (error) {
    return { kind: 'error', text: `Trigger not created: ${errorText(error, w)}` };
  }
}

export async function removeTrigger(w: WebDeps, form: Form): Promise<Flash> {
  try {
    const result = (await triggersDelete.call({ id: field(form, 'id') }, context(w))) as { id: string; kind: string; note?: string };
    return { kind: 'ok', text: `Removed trigger ${result.id} (${result.kind}); it delivers no more events.${result.note ? ` ${result.note}` : ''}` };
  } catch (error) {
    return { kind: 'error', text: `Trigger not removed: ${errorText(error, w)}` };
  }
}
