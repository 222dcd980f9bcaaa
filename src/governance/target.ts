/*
 * What a tool call acted on, in a few characters, from argument names every connector spells alike. Only identifiers
 * are read: never a body, a subject, an address or a query string, which may carry personal data or a secret.
 */

const MAX_TARGET = 160;

const printable = (value: string) => [...value].filter((c) => c >= ' ' && c !== '\u007f').join('');
const text = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? printable(String(value)).slice(0, 120) || undefined : undefined;

/** The short target of a call: `owner/repo#12`, `owner/repo@main`, a message or trigger id, `project my-app`, `GET /user`. */
export function targetOf(args: unknown): string | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const a = args as Record<string, unknown>;
  const found = repository(a) ?? named(a) ?? apiCall(a);
  return found?.slice(0, MAX_TARGET);
}

function repository(a: Record<string, unknown>): string | undefined {
  const owner = text(a.owner);
  const repo = text(a.repo);
  if (!owner || !repo) return undefined;
  const number = text(a.issue_number) ?? text(a.pull_number) ?? text(a.number);
  if (number) return `${owner}/${repo}#${number}`;
  const ref = text(a.branch) ?? text(a.ref);
  return ref ? `${owner}/${repo}@${ref}` : `${owner}/${repo}`;
}

function named(a: Record<string, unknown>): string | undefined {
  const labelled: Array<[string, string]> = [
    ['message_id', 'message'],
    ['gist_id', 'gist'],
    ['deployment_id', 'deployment'],
    ['project', 'project'],
    ['trigger_id', 'trigger'],
    ['subscription_id', 'subscription'],
  ];
  for (const [field, label] of labelled) {
    const value = text(a[field]);
    if (value) return `${label} ${value}`;
  }
  return text(a.id);
}

function apiCall(a: Record<string, unknown>): string | undefined {
  const method = text(a.method);
  const path = text(a.endpoint) ?? text(a.path);
  // The query string is left out: it may carry a search term or a token.
  return method && path ? `${method} ${path.split('?')[0]}` : undefined;
}
