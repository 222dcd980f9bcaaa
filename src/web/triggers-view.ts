import type { Account } from '../store/types.js';
import type { FormProblem } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, noticeBox } from './layout.js';
import type { Notice } from './session.js';
import { timeTag } from './time.js';
import { createTriggerForm, type KindChoice } from './trigger-form.js';

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
  mode: string;
  mode_reason: string | null;
  refused_notifications?: number;
}

interface Model {
  csrf: string;
  now: number;
  accounts: Account[];
  triggers: TriggerRow[];
  kinds: KindChoice[];
  notice?: Notice;
  problem?: FormProblem;
}

export function triggersSection(m: Model): SafeHtml {
  const titles = new Map(m.kinds.map((k) => [k.kind, k.title]));
  return html`<section class="panel" id="triggers" aria-labelledby="triggers-title">
<h2 id="triggers-title">Triggers</h2>
<p class="lead">A trigger watches an account for one kind of event. Agents read its events with <code>events_next</code> or subscribe to <code>switchboard://triggers/{id}/events</code>.</p>
${m.notice?.section === 'triggers' ? noticeBox(m.notice) : ''}
${
  m.triggers.length === 0
    ? html`<p class="muted">No triggers yet: create one below.</p>`
    : html`<ul class="rows" id="trigger-list">${m.triggers.map((t) => triggerRow(t, m, titles.get(t.kind)))}</ul>`
}
${createTriggerForm({ csrf: m.csrf, accounts: m.accounts, kinds: m.kinds, problem: m.problem, open: m.triggers.length === 0 })}
</section>`;
}

function triggerRow(t: TriggerRow, m: Model, title: string | undefined): SafeHtml {
  // A signing secret is never part of the stored config, but nothing named like one is shown either way.
  const config = Object.entries(t.config).filter(([k]) => !/secret/i.test(k));
  return html`<li class="split" data-trigger="${t.id}" id="trigger-${t.id}">
<div>
<div class="title-line"><strong>${title ?? t.kind}</strong><code>${t.kind}</code><span class="status status-${t.status}">${t.status}</span></div>
<dl class="facts">
<div><dt>Account</dt><dd>${t.account}</dd></div>
<div><dt>Id</dt><dd><code>${t.id}</code></dd></div>
<div><dt>Mode</dt><dd>${t.mode}</dd></div>
<div><dt>Fired</dt><dd class="fired">${t.fired}</dd></div>
<div><dt>Skipped</dt><dd>${t.skipped}</dd></div>
<div><dt>Errors</dt><dd>${t.errors}</dd></div>
${t.refused_notifications ? html`<div><dt>Refused notifications</dt><dd class="refused">${t.refused_notifications}</dd></div>` : ''}
<div><dt>Last event</dt><dd class="last-event">${t.last_event_at ? timeTag(t.last_event_at, m.now) : html`<span class="muted">none yet</span>`}</dd></div>
</dl>
${
  config.length
    ? html`<ul class="config-list" aria-label="Config of trigger ${t.id}">${config.map(([k, value]) => html`<li><code>${k}: ${Array.isArray(value) ? value.join(', ') : String(value)}</code></li>`)}</ul>`
    : html`<p class="small muted">Default settings.</p>`
}
${t.forward_url ? html`<p class="small muted">Also forwarded to ${originOf(t.forward_url)}</p>` : ''}
${t.mode_reason ? html`<p class="small muted">${t.mode_reason}</p>` : ''}
${t.last_error ? html`<p class="small status-failing">Last error: ${t.last_error}</p>` : ''}
</div>
<div class="actions">
<form method="post" action="/triggers/test" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${t.id}">
<button class="secondary" type="submit">Send test event<span class="vh"> to trigger ${t.id}</span></button></form>
<form method="post" action="/triggers/remove" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${t.id}">
<button class="danger secondary" type="submit">Remove<span class="vh"> trigger ${t.id}</span></button></form>
</div>
</li>`;
}

/** Only the origin of a forward URL: its path or query may carry a token of the receiver's. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
