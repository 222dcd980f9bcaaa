import { inputJsonSchema } from '../schema.js';
import type { Provider } from '../store/types.js';
import { TRIGGER_KINDS } from './kinds.js';

export interface KindField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface KindHelp {
  kind: string;
  provider: Provider;
  description: string;
  delivery: 'poll' | 'webhook' | 'webhook or poll' | 'poll, or push with a public URL';
  config: KindField[];
  /** Fields of which exactly one must be given. */
  exactlyOneOf?: string[];
}

export const FILTER_SYNTAX = [
  'Filter syntax (outlook.new_email --filter), evaluated on each new email:',
  '  subject:<text>  body:<text>  from:<address, * as wildcard>  hasAttachments:true|false  received:MM/DD/YYYY',
  '  joined by AND; quote text with spaces: subject:"quarterly invoice" AND from:*@acme.com',
  '  A malformed filter is refused with the position of the mistake.',
].join('\n');

/** Every trigger kind (or one provider's) with its config fields, as `switchboard triggers kinds` shows them. */
export function describeKinds(provider?: Provider): KindHelp[] {
  return [...TRIGGER_KINDS.values()]
    .filter((k) => !provider || k.connector === provider)
    .map((k) => {
      const schema = inputJsonSchema(k.config) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
      const required = new Set(schema.required ?? []);
      return {
        kind: k.kind,
        provider: k.connector,
        description: k.description,
        delivery: k.push ? 'poll, or push with a public URL' : k.webhook && k.poll ? 'webhook or poll' : k.webhook ? 'webhook' : 'poll',
        config: Object.entries(schema.properties ?? {}).map(([name, field]) => ({
          name,
          type: typeName(field),
          required: required.has(name),
          description: String(field.description ?? ''),
        })),
        ...(k.exactlyOneOf ? { exactlyOneOf: k.exactlyOneOf } : {}),
      };
    });
}

function typeName(field: Record<string, unknown>): string {
  if (Array.isArray(field.enum)) return field.enum.join('|');
  if (field.type === 'array') return `${typeName((field.items ?? {}) as Record<string, unknown>)}[]`;
  if (Array.isArray(field.anyOf)) return field.anyOf.map((f) => typeName(f as Record<string, unknown>)).join('|');
  return String(field.type ?? 'any');
}

export function formatKinds(kinds: KindHelp[]): string {
  const blocks = kinds.map((k) => {
    const fields = k.config.map((f) => `    ${f.name}${f.required ? '' : '?'}: ${f.type}${f.description ? `  ${f.description}` : ''}`);
    const oneOf = k.exactlyOneOf ? [`  config (exactly one of ${k.exactlyOneOf.join(', ')}):`] : ['  config:'];
    return [`${k.kind}  (${k.delivery})`, `  ${k.description}`, ...(fields.length ? [...oneOf, ...fields] : ['  config: none'])].join('\n');
  });
  const showsEmail = kinds.some((k) => k.kind === 'outlook.new_email');
  const footer = [
    'Config fields go in --config \'{"field": value}\'; outlook.new_email also takes --filter, --folder and --interval.',
    ...(showsEmail ? ['', FILTER_SYNTAX] : []),
  ].join('\n');
  return `${blocks.join('\n\n')}\n\n${footer}`;
}
