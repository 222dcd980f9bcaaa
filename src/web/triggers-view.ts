import type { Account, Provider } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';

/** A trigger as triggers_list describes it. */
export interface TriggerRow {
  id: string;
  kind: string;
  account: string;
  status: string;
  config: Record<string, unknown>;
  forward_url: string | null;
  fired: number;
  skipped: number;
  errors: number;
  last_event_at: string | null;
  last_error: string | null;
}

export interface EventRow {
  id: number;
  triggerId: string;
  kind: string;
  occurredAt: string;
  summary: string;
}

interface Model {
  csrf: string;
  accounts: Account[];
  triggers: TriggerRow[];
  kinds: Array<{ kind: string; connector: Provider; description: string }>;
}

export function triggersSection(m: Model): SafeHtml {
  return html`<section id="triggers" aria-labelledby="triggers-title">
<h2 id="triggers-title">Triggers</h2>
${
  m.triggers.length === 0
    ? html`<p class="muted">No triggers yet.</p>`
    : html`<table>
<thead><tr><th>Kind</th><th>Account</th><th>Config</th><th>Status</th><th>Fired</th><th>Skipped</th><th>Errors</th><th>Last event</th><th></th></tr></thead>
<tbody>${m.triggers.map((t) => triggerRow(t, m.csrf))}</tbody>
</table>`
}
${createForm(m)}
</section>`;
}

function triggerRow(t: TriggerRow, csrf: string): SafeHtml {
  return html`<tr data-trigger="${t.id}">
<td><code>${t.kind}</code><div class="muted"><code>${t.id}</code></div></td>
<td>${t.account}</td>
<td><code>${JSON.stringify(t.config)}</code>${t.forward_url ? html`<div class="muted">forwards to ${originOf(t.forward_url)}</div>` : ''}</td>
<td><span class="status-${t.status}">${t.status}</span>${t.last_error ? html`<div class="muted">${t.last_error}</div>` : ''}</td>
<td class="fired">${t.fired}</td><td>${t.skipped}</td><td>${t.errors}</td>
<td>${t.last_event_at ?? html`<span class="muted">-</span>`}</td>
<td><form method="post" action="/triggers/remove" class="inline">${csrfField(csrf)}<input type="hidden" name="id" value="${t.id}">
<button class="danger" type="submit" aria-label="Remove trigger ${t.id}">Remove</button></form></td>
</tr>`;
}

function createForm(m: Model): SafeHtml {
  const connectors = [...new Set(m.kinds.map((k) => k.connector))];
  return html`<details id="create-trigger" ${m.triggers.length === 0 ? 'open' : ''}>
<summary>Create a trigger</summary>
<form method="post" action="/triggers/create" id="trigger-form">
${csrfField(m.csrf)}
<label>Kind <select name="kind" required>${connectors.map(
    (c) => html`<optgroup label="${c}">${m.kinds.filter((k) => k.connector === c).map((k) => html`<option value="${k.kind}" title="${k.description}">${k.kind}</option>`)}</optgroup>`,
  )}</select></label>
<label>Account <select name="account">
<option value="">the provider's default account</option>
${m.accounts.map((a) => html`<option value="${a.id}">${a.provider} · ${a.label}${a.isDefault ? ' (default)' : ''}</option>`)}
</select></label>
<fieldset><legend>Outlook new email</legend>
<label>Folder <input type="text" name="folder" placeholder="inbox"></label>
<label>Filter <input type="text" name="filter" size="48" placeholder='from:*@acme.com AND subject:"invoice"'></label>
<label>Shared mailbox (optional) <input type="text" name="mailbox"></label>
</fieldset>
<fieldset><legend>GitHub / Vercel</legend>
<label>Repository <input type="text" name="repo" placeholder="owner/name"></label>
<label>Vercel project <input type="text" name="project" placeholder="prj_... or name"></label>
</fieldset>
<label>More config as JSON (optional) <textarea name="config" placeholder='{"poll_interval_seconds": 60}'></textarea></label>
<button type="submit">Create trigger</button>
</form>
</details>`;
}

export function eventsSection(events: EventRow[]): SafeHtml {
  return html`<section id="events" aria-labelledby="events-title">
<h2 id="events-title">Recent events</h2>
${
  events.length === 0
    ? html`<p class="muted">No events yet.</p>`
    : html`<table>
<thead><tr><th>#</th><th>When</th><th>Kind</th><th>Trigger</th><th>Summary</th></tr></thead>
<tbody>${events.map(
        (e) => html`<tr data-event="${e.id}"><td>${e.id}</td><td>${e.occurredAt}</td><td><code>${e.kind}</code></td><td><code>${e.triggerId}</code></td><td>${e.summary}</td></tr>`,
      )}</tbody>
</table>`
}
</section>`;
}

/** Only the origin of a forward URL: its path or query may carry a token of the receiver's. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
