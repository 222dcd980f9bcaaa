import { recordAct } from '../governance/acts.js';
import { accountBaseUrl } from '../accounts/base-url.js';
import { connectAccount } from '../accounts/commands.js';
import { checkProvider } from '../config.js';
import type { Config } from '../config.js';
import { AccountError, errorMessage, InputError, ProviderError } from '../errors.js';
import type { Logger } from '../log.js';
import { findProviderRecord, providerRecord } from '../providers.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { endSubscriptions } from '../events/end.js';
import { sendTestEvent } from '../triggers/test-event.js';
import { triggersCreate, triggersDelete } from '../triggers/tools.js';
import type { SignInApi } from '../contracts/accounts.js';
import type { SandboxCredential } from '../sandbox/load.js';
import { field, type Form } from './respond.js';
import { configFromForm, formFieldOf, kindChoices } from './trigger-form.js';

/** What a form post did: a message for the page, or what went wrong and (when it is about one) which field. */
export type Outcome = { ok: string } | { error: string; field?: string };

/** Shown next to a field, the message says only what is wrong with it; shown at the top, it also says what did not happen. */
function failed(prefix: string, error: unknown, w: WebDeps, field?: string, ...secrets: string[]): Outcome {
  const text = errorText(error, w, ...secrets);
  if (!field) return { error: `${prefix}${text}` };
  return { error: aboutField(text, error instanceof InputError ? error.field : undefined), field };
}

/** "Invalid arguments:\n- config.filter: Filter error…" about config.filter → "Filter error…". */
function aboutField(text: string, path: string | undefined): string {
  const list = /^Invalid arguments:\n- ([\s\S]*)$/.exec(text)?.[1];
  if (!list || !path) return text;
  const lines = list.split('\n- ').filter((line) => line.startsWith(`${path}: `));
  return lines.length ? lines.map((line) => line.slice(path.length + 2)).join('\n') : text;
}

/** A new credential the provider will not take: what it said, and what to do (not the stored-account advice of the tools). */
/** What a provider named in a form takes: an API key or a token. */
function credentialName(provider: string): string {
  return findProviderRecord(provider)?.credential === 'api_key' ? 'API key' : 'token';
}

function refusedText(error: ProviderError, what: string): string {
  const said = error.providerMessage ? ` (${error.providerMessage.replace(/\.$/, '')})` : '';
  return `The provider refused this ${what}: ${error.status}${said}. Check that you copied all of it, for the right account, and paste it again.`;
}

/** The field an InputError names, when the form shows that field. */
function fieldOf(error: unknown, fields: string[]): string | undefined {
  const field = error instanceof InputError ? error.field : undefined;
  return field && fields.includes(field) ? field : undefined;
}

export interface WebDeps {
  /** The server's own tool dependencies: the open store, the trigger runtime, base URLs. */
  deps: ToolDeps;
  /** The running configuration (the page reads SWITCHBOARD_HTTP_TOKEN and the public URL from it). */
  config: Config;
  logger: Logger;
  /** The OAuth sign-in, when not the server's own (ToolDeps.signIn). */
  signIn?: () => Promise<SignInApi | undefined>;
  /** Sandbox mode only: the sample credentials its stand-ins accept, which the page shows. */
  sandboxCredentials?: SandboxCredential[];
}

/** The message an error shows on the page: the one error text of the tools, with any submitted secret removed. */
export function errorText(error: unknown, w: WebDeps, ...secrets: string[]): string {
  return scrub(errorMessage(error), w, ...secrets);
}

function scrub(text: string, w: WebDeps, ...secrets: string[]): string {
  let out = w.deps.redactor.redact(text);
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

function context(w: WebDeps): CallContext {
  return { deps: w.deps, signal: AbortSignal.timeout(60_000), progress: async () => undefined };
}

/** Adds a token or API key as `switchboard accounts add` does (connectAccount): the provider is asked who it is, then it is stored. */
export async function addCredential(w: WebDeps, form: Form): Promise<Outcome> {
  const secret = field(form, 'secret');
  try {
    const provider = checkProvider(field(form, 'provider'));
    const record = providerRecord(provider);
    const isKey = record.credential === 'api_key';
    if (!secret) throw new InputError(`Paste the ${isKey ? 'API key' : 'token'}.`, 'secret');
    if (/\s/.test(secret)) throw new InputError(`The ${isKey ? 'API key' : 'token'} contains white space; paste exactly one.`, 'secret');
    const groups = form.get('groups')?.map((g) => g.trim()).filter(Boolean);
    const baseText = field(form, 'base_url');
    const baseUrl = baseText ? accountBaseUrl(provider, baseText, 'The API base URL', 'base_url') : undefined;
    const { store, baseUrls, dispatcher, redactor } = w.deps;
    const account = await connectAccount({ store, baseUrls, dispatcher, redactor }, {
      provider,
      label: field(form, 'label') || undefined,
      teamId: record.accountOptions.includes('team') ? field(form, 'team') || undefined : undefined,
      groups: record.accountOptions.includes('groups') ? groups : undefined,
      dialect: record.accountOptions.includes('dialect') ? field(form, 'dialect') || undefined : undefined,
      baseUrl,
      secret: isKey ? { kind: 'api_key', apiKey: secret } : { kind: 'token', token: secret },
    });
    w.logger.info('account added from the Integrations page', { provider, account: account.id });
    recordAct(w.deps, 'account.added', { account: account.id, target: `${provider} ${account.label}` });
    return {
      ok: `Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''}${account.baseUrl ? ` at ${account.baseUrl}` : ''}${account.isDefault ? ', the default' : ''}.`,
    };
  } catch (error) {
    // A provider that refuses the credential is the credential's fault: the message goes next to it.
    if (error instanceof ProviderError && (error.status === 401 || error.status === 403)) {
      return { error: scrub(refusedText(error, credentialName(field(form, 'provider'))), w, secret), field: 'secret' };
    }
    return failed('Not added: ', error, w, fieldOf(error, ['secret', 'label', 'dialect', 'team', 'groups', 'base_url']), secret);
  }
}

export async function renameAccount(w: WebDeps, form: Form): Promise<Outcome> {
  try {
    const before = await w.deps.store.accounts.find(field(form, 'id'));
    if (!before) throw new InputError('That account no longer exists.', 'id');
    const after = await w.deps.store.accounts.rename(before.id, field(form, 'label'));
    return { ok: `Renamed "${before.label}" to "${after.label}".` };
  } catch (error) {
    return failed('Not renamed: ', error, w, fieldOf(error, ['label']));
  }
}

export async function makeDefault(w: WebDeps, form: Form): Promise<Outcome> {
  try {
    const account = await w.deps.store.accounts.find(field(form, 'id'));
    if (!account) throw new InputError('That account no longer exists.', 'id');
    await w.deps.store.accounts.setDefault(account.id);
    return { ok: `"${account.label}" is now the default ${account.provider} account.` };
  } catch (error) {
    return failed('Not changed: ', error, w);
  }
}

/** Deletes the account's triggers through triggers_delete first (so provider webhooks are removed), then the account. */
export async function removeAccount(w: WebDeps, form: Form): Promise<Outcome> {
  try {
    if (field(form, 'confirm') !== 'yes') throw new InputError('Removing an account needs the confirmation step.', 'confirm');
    const account = await w.deps.store.accounts.find(field(form, 'id'));
    if (!account) throw new InputError('That account no longer exists.', 'id');
    if (account.shared) throw new InputError(`The ${account.provider} account "${account.label}" is shared with you: only its owner can remove it.`, 'id');
    const notes: string[] = [];
    await endSubscriptions(w.deps, { accountId: account.id }, 'account_removed');
    for (const t of await w.deps.store.triggers.list({ accountId: account.id })) {
      const result = (await triggersDelete.call({ id: t.id }, context(w))) as { note?: string };
      if (result.note) notes.push(result.note);
    }
    await w.deps.store.accounts.remove(account.id);
    recordAct(w.deps, 'account.removed', { account: account.id, target: `${account.provider} ${account.label}` });
    return { ok: [`Removed ${account.provider} account "${account.label}".`, ...notes].join(' ') };
  } catch (error) {
    return failed('Not removed: ', error, w);
  }
}

/** triggers_create with the form's kind, account and the config fields of that kind. */
export async function createTrigger(w: WebDeps, form: Form): Promise<Outcome> {
  const choice = kindChoices(w.deps.triggers?.kinds ?? new Map()).find((k) => k.kind === field(form, 'kind'));
  try {
    if (!choice) throw new InputError('Choose a kind of trigger from the list.', 'kind');
    const config = configFromForm(choice, form);
    const account = field(form, 'account');
    const result = (await triggersCreate.call({ kind: choice.kind, ...(account ? { account } : {}), config }, context(w))) as {
      trigger: { id: string };
      next: string;
    };
    return { ok: `Created trigger ${result.trigger.id}. ${result.next}` };
  } catch (error) {
    const fieldName = error instanceof AccountError ? 'account' : error instanceof InputError ? formFieldOf(error.field, choice?.connector) : undefined;
    return failed('Trigger not created: ', error, w, fieldName);
  }
}

export async function removeTrigger(w: WebDeps, form: Form): Promise<Outcome> {
  try {
    const result = (await triggersDelete.call({ id: field(form, 'id') }, context(w))) as { id: string; kind: string; note?: string };
    return { ok: `Removed trigger ${result.id} (${result.kind}); it delivers no more events.${result.note ? ` ${result.note}` : ''}` };
  } catch (error) {
    return failed('Trigger not removed: ', error, w);
  }
}

/** "Send test event": a synthetic event, marked as a test, through the normal event log. */
export async function sendTest(w: WebDeps, form: Form): Promise<Outcome> {
  try {
    if (!w.deps.triggers) throw new Error('Triggers are not available in this process.');
    const event = await sendTestEvent(w.deps.store, w.deps.triggers.log, field(form, 'id'), 'the Integrations page');
    return {
      ok: `Sent test event #${event.id} to trigger ${event.triggerId} (${event.kind}). Agents, switchboard events tail and forwarding get it like any other event; its payload says "test": true.`,
    };
  } catch (error) {
    return failed('Test event not sent: ', error, w);
  }
}
