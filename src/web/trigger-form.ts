import { InputError } from '../errors.js';
import { inputJsonSchema } from '../schema.js';
import type { Account, Provider } from '../store/types.js';
import type { TriggerKind } from '../contracts/triggers.js';
import { FormView, type FormProblem } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';
import { providerRecord } from '../providers.js';
import type { Form } from './respond.js';

type JsonSchema = { type?: string; enum?: string[]; items?: JsonSchema; description?: string; minimum?: number; maximum?: number; properties?: Record<string, JsonSchema>; required?: string[] };

/** A kind as the form offers it: its config fields come from its zod schema in the trigger kind registry. */
export interface KindChoice {
  kind: string;
  connector: Provider;
  title: string;
  description: string;
  schema: JsonSchema;
  /** Fields of which exactly one must be given. */
  exactlyOneOf?: string[];
}

/** One control of the form, shared by the kinds of a connector whose config has this field with this shape. */
interface ConfigField {
  connector: Provider;
  name: string;
  schema: JsonSchema;
  kinds: string[];
  /** The field's description per kind, where kinds describe it differently. */
  hints: Record<string, string>;
}

/** "github.new_pull_request_review" → "New pull request review". */
function kindTitle(kind: string): string {
  const words = kind.slice(kind.indexOf('.') + 1).replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const NAMES: Record<string, string> = { repo: 'Repository', org: 'Organization', poll_interval_seconds: 'Poll interval (seconds)' };

function fieldTitle(name: string): string {
  const words = name.replace(/_/g, ' ');
  return NAMES[name] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

const choicesOf = new WeakMap<Map<string, TriggerKind>, KindChoice[]>();

/** The registry's kinds with their config as JSON Schema, converted once per registry. */
export function kindChoices(kinds: Map<string, TriggerKind>): KindChoice[] {
  let choices = choicesOf.get(kinds);
  if (!choices) {
    choices = [...kinds.values()].map((k) => ({
      kind: k.kind,
      connector: k.connector,
      title: kindTitle(k.kind),
      description: k.description,
      schema: inputJsonSchema(k.config) as JsonSchema,
      ...(k.exactlyOneOf ? { exactlyOneOf: k.exactlyOneOf } : {}),
    }));
    choicesOf.set(kinds, choices);
  }
  return choices;
}

function configFields(choices: KindChoice[]): ConfigField[] {
  const fields = new Map<string, ConfigField>();
  for (const c of choices) {
    for (const [name, schema] of Object.entries(c.schema.properties ?? {})) {
      const { description, ...shape } = schema;
      const key = `${c.connector} ${name} ${JSON.stringify(shape)}`;
      const field = fields.get(key) ?? { connector: c.connector, name, schema, kinds: [], hints: {} };
      field.kinds.push(c.kind);
      if (description && description !== field.schema.description) field.hints[c.kind] = description;
      fields.set(key, field);
    }
  }
  return [...fields.values()];
}

/** The form's name for a config field: scoped by connector, as two connectors may share a field name. */
function inputName(connector: Provider, name: string): string {
  return `${connector}.${name}`;
}

/** The config the chosen kind gets from the form: only that kind's fields, typed as its schema says (the tool validates them). */
export function configFromForm(choice: KindChoice, form: Form): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(choice.schema.properties ?? {})) {
    const values = (form.get(inputName(choice.connector, name)) ?? []).map((v) => v.trim()).filter(Boolean);
    if (values.length === 0) continue;
    const first = values[0]!;
    if (schema.type === 'array') config[name] = schema.items?.enum ? values : first.split(/[,\n]/).map((v) => v.trim()).filter(Boolean);
    else if (schema.type === 'integer' || schema.type === 'number') {
      const n = Number(first);
      if (!Number.isFinite(n)) throw new InputError(`"${name}" must be a number, e.g. ${schema.minimum ?? 60}.`, `config.${name}`);
      config[name] = n;
    } else if (schema.type === 'boolean') config[name] = first === 'true';
    else config[name] = first;
  }
  const group = choice.exactlyOneOf;
  if (group && group.filter((name) => config[name] !== undefined).length !== 1) {
    const given = group.filter((name) => config[name] !== undefined);
    throw new InputError(`Give exactly one of ${oneOfText(group)}${given.length ? ', not both' : ''}.`, `config.${group[0]}`);
  }
  return config;
}

/** "Repository or Organization". */
function oneOfText(group: string[]): string {
  return group.map(fieldTitle).join(' or ');
}

/** The form field a trigger error is about: "config.filter" of an Outlook kind is the form's "outlook.filter". */
export function formFieldOf(field: string | undefined, connector: Provider | undefined): string | undefined {
  if (!field) return undefined;
  if (field.startsWith('config.') && connector) return inputName(connector, field.split('.')[1]!);
  return field === 'kind' || field === 'account' ? field : undefined;
}

interface Model {
  csrf: string;
  accounts: Account[];
  kinds: KindChoice[];
  problem?: FormProblem;
  open: boolean;
}

export function createTriggerForm(m: Model): SafeHtml {
  const fields = configFields(m.kinds);
  const v = new FormView('trigger-form', m.problem, ['kind', 'account', ...fields.map((f) => inputName(f.connector, f.name))]);
  const connectors = [...new Set(m.kinds.map((k) => k.connector))];
  const chosen = m.kinds.find((k) => k.kind === v.value('kind')) ?? m.kinds[0];
  return html`<details id="create-trigger" ${m.open || v.failed ? 'open' : ''}>
<summary>Create a trigger</summary>
<form method="post" action="/triggers/create" id="trigger-form">
${csrfField(m.csrf)}
${v.topError()}
<div class="form-grid">
<div class="field"><label for="trigger-kind">Kind</label>
<select id="trigger-kind" name="kind" required${v.aria('kind', 'kind-about')}>${connectors.map(
    (c) =>
      html`<optgroup label="${providerRecord(c).title}">${m.kinds
        .filter((k) => k.connector === c)
        .map(
          (k) =>
            html`<option value="${k.kind}" data-connector="${k.connector}" data-required="${(k.schema.required ?? []).join(' ')}" data-one-of="${(k.exactlyOneOf ?? []).join(' ')}" data-one-of-text="${k.exactlyOneOf ? `exactly one of ${oneOfText(k.exactlyOneOf)}` : ''}" data-fields="${Object.keys(k.schema.properties ?? {}).join(' ')}" data-about="${k.description}" ${k === chosen ? 'selected' : ''}>${k.title}</option>`,
        )}</optgroup>`,
  )}</select>${v.error('kind')}</div>
<div class="field"><label for="trigger-account">Account</label>
<select id="trigger-account" name="account"${v.aria('account', 'no-account')}>
<option value="" id="default-account">The provider's default account</option>
${connectors
  .map(
    (p) =>
      html`<optgroup label="${providerRecord(p).title}" data-provider="${p}">${m.accounts
        .filter((a) => a.provider === p)
        .map((a) => html`<option value="${a.id}" ${v.value('account') === a.id ? 'selected' : ''}>${a.label}${a.identity ? ` (${a.identity})` : ''}${a.isDefault ? ', default' : ''}</option>`)}</optgroup>`,
  )}
</select>
<span class="hint" id="no-account" hidden>No account of this provider is connected yet: add one under Add an integration.</span>${v.error('account')}</div>
</div>
<p class="kind-about" id="kind-about">${chosen?.description}</p>
${connectors.map(
  (c) => html`<fieldset data-connector="${c}"><legend>${providerRecord(c).title} settings</legend><div class="form-grid">${fields
    .filter((f) => f.connector === c)
    .map((f) => configField(f, v, fields, chosen?.kind))}</div></fieldset>`,
)}
<button type="submit">Create trigger</button>
</form>
</details>`;
}

function configField(f: ConfigField, form: FormView, all: ConfigField[], chosenKind: string | undefined): SafeHtml {
  const name = inputName(f.connector, f.name);
  // Two shapes of one field name (GitHub's "changes" for issues and for pull requests) say which kinds they serve;
  // a message about that field belongs to the one of the chosen kind.
  const twins = all.filter((o) => o.connector === f.connector && o.name === f.name).length > 1;
  const v = twins && !f.kinds.includes(chosenKind ?? '') ? new FormView(form.id, undefined, []) : form;
  const title = fieldTitle(f.name) + (twins ? ` (${f.kinds.map(kindTitle).join(', ').toLowerCase()})` : '');
  const id = `trigger-${f.connector}-${f.name}${twins ? `-${all.indexOf(f)}` : ''}`;
  const s = f.schema;
  const withNote = (text: string) => (s.type === 'array' && !s.items?.enum ? `${text} Separate several with commas.` : text);
  const hint = withNote(s.description ?? '');
  const hints = Object.fromEntries(Object.entries(f.hints).map(([kind, text]) => [kind, withNote(text)]));
  const hintTag = html`<span class="hint" id="${id}-hint" data-default="${hint}">${hint}</span>`;
  const attrs = v.aria(name, `${id}-hint`);
  let control: SafeHtml;
  if (s.type === 'array' && s.items?.enum) {
    return html`<fieldset class="field" data-kinds="${f.kinds.join(' ')}" data-name="${f.name}" data-hints="${JSON.stringify(hints)}"><legend>${title}<span class="need"></span></legend>
${s.items.enum.map((o) => html`<label class="check"><input type="checkbox" name="${name}" value="${o}" ${v.chosen(name, o, false) ? 'checked' : ''}${attrs}> ${o}</label>`)}
${hintTag}${v.error(name)}</fieldset>`;
  } else if (s.enum || s.type === 'boolean') {
    const options = s.enum ? s.enum.map((o) => [o, o]) : [['true', 'Yes'], ['false', 'No']];
    control = html`<select id="${id}" name="${name}"${attrs}><option value="">Default</option>${options.map(
      ([value, text]) => html`<option value="${value}" ${v.value(name) === value ? 'selected' : ''}>${text}</option>`,
    )}</select>`;
  } else {
    const type = s.type === 'integer' || s.type === 'number' ? 'number' : f.name === 'secret' ? 'password' : 'text';
    control = html`<input type="${type}" id="${id}" name="${name}" value="${type === 'password' ? '' : v.value(name)}"${type === 'number' ? html`${s.minimum !== undefined ? html` min="${s.minimum}"` : ''}${s.maximum !== undefined ? html` max="${s.maximum}"` : ''} step="${s.type === 'integer' ? '1' : 'any'}"` : ''}${attrs}>`;
  }
  return html`<div class="field" data-kinds="${f.kinds.join(' ')}" data-name="${f.name}" data-hints="${JSON.stringify(hints)}">
<label for="${id}">${title}<span class="need"></span></label>${control}${v.error(name)}${hintTag}</div>`;
}
