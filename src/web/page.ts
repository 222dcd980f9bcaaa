import { OUTLOOK_GROUPS, DEFAULT_OUTLOOK_GROUPS } from '../connectors/outlook/common.js';
import { PROVIDERS, type Account, type Provider } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, flashBox, layout } from './layout.js';
import type { Flash } from './session.js';
import { triggersSection, eventsSection, type EventRow, type TriggerRow } from './triggers-view.js';

export const PROVIDER_INFO: Record<Provider, { title: string; oauth: boolean; credential: 'token' | 'api_key'; tokenHelp: string }> = {
  outlook: { title: 'Microsoft Outlook', oauth: true, credential: 'token', tokenHelp: 'A Microsoft Graph access token (short-lived; sign-in is better).' },
  sales: { title: 'Sales intelligence', oauth: false, credential: 'api_key', tokenHelp: 'The API key from your sales-intelligence account settings.' },
  github: { title: 'GitHub', oauth: true, credential: 'token', tokenHelp: 'A personal access token (fine-grained or classic).' },
  vercel: { title: 'Vercel', oauth: true, credential: 'token', tokenHelp: 'An access token from Vercel account settings.' },
};

export interface PageModel {
  nonce: string;
  csrf: string;
  flash?: Flash;
  accounts: Account[];
  triggers: TriggerRow[];
  events: EventRow[];
  kinds: Array<{ kind: string; connector: Provider; description: string }>;
  /** Why pop-up sign-in is unavailable, when it is. */
  signInUnavailable?: string;
  /** Show a sign-out button (the page is behind SWITCHBOARD_HTTP_TOKEN). */
  canLogOut: boolean;
}

export function integrationsPage(m: PageModel): SafeHtml {
  const logout = m.canLogOut
    ? html`<form method="post" action="/logout" class="inline">${csrfField(m.csrf)}<button class="secondary" type="submit">Sign out</button></form>`
    : undefined;
  return layout({
    title: 'Integrations & API Keys',
    nonce: m.nonce,
    header: logout,
    body: html`${flashBox(m.flash)}
<section id="accounts" aria-labelledby="accounts-title">
<h2 id="accounts-title">Connected accounts</h2>
${PROVIDERS.map((p) => providerAccounts(p, m))}
</section>
${addIntegration(m)}
${triggersSection(m)}
${eventsSection(m.events)}`,
  });
}

function providerAccounts(provider: Provider, m: PageModel): SafeHtml {
  const accounts = m.accounts.filter((a) => a.provider === provider);
  const info = PROVIDER_INFO[provider];
  return html`<h3>${info.title} <span class="muted">(${provider})</span></h3>
${
  accounts.length === 0
    ? html`<p class="muted">No ${info.title} account connected.</p>`
    : html`<table data-provider="${provider}">
<thead><tr><th>Label</th><th>Identity</th><th>Permission groups</th><th>Status</th><th>Last used</th><th>Default</th><th>Actions</th></tr></thead>
<tbody>${accounts.map((a) => accountRow(a, m))}</tbody>
</table>`
}`;
}

function accountRow(a: Account, m: PageModel): SafeHtml {
  const groups = a.groups.length ? a.groups.map((g) => html`<span class="badge">${g}</span>`) : html`<span class="muted">-</span>`;
  const reconnect =
    a.status === 'needs_reconnect'
      ? html`<div class="muted">${PROVIDER_INFO[a.provider].oauth && !m.signInUnavailable ? 'Sign in again under Add Integration, then remove this one.' : 'Remove it and add a new credential.'}</div>`
      : '';
  return html`<tr data-account="${a.id}" data-label="${a.label}">
<td class="label">${a.label}</td>
<td>${a.identity ?? html`<span class="muted">-</span>`}</td>
<td>${groups}</td>
<td><span class="status-${a.status}">${a.status === 'needs_reconnect' ? 'needs reconnect' : a.status}</span>${reconnect}</td>
<td>${a.lastUsedAt ? html`<time datetime="${a.lastUsedAt}">${a.lastUsedAt.replace('T', ' ').slice(0, 16)} UTC</time>` : html`<span class="muted">never</span>`}</td>
<td class="default">${a.isDefault ? html`<span class="badge">default</span>` : ''}</td>
<td>
<form method="post" action="/accounts/rename" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}">
<input type="text" name="label" value="${a.label}" aria-label="New label for ${a.label}" size="12" maxlength="64" required><button class="secondary" type="submit">Rename</button></form>
${a.isDefault ? '' : html`<form method="post" action="/accounts/default" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}"><button class="secondary" type="submit">Make default</button></form>`}
<a class="button secondary" href="/accounts/remove?id=${encodeURIComponent(a.id)}">Remove…</a>
</td>
</tr>`;
}

function addIntegration(m: PageModel): SafeHtml {
  return html`<section id="add" aria-labelledby="add-title">
<h2 id="add-title">Add Integration</h2>
${m.signInUnavailable ? html`<p class="muted" id="signin-note">${m.signInUnavailable}</p>` : ''}
<div class="grid">${PROVIDERS.map((p) => providerCard(p, m))}</div>
</section>`;
}

function groupBoxes(prefix: string): SafeHtml {
  return html`<fieldset><legend>Permission groups</legend>${Object.keys(OUTLOOK_GROUPS).map(
    (g) =>
      html`<label class="check"><input type="checkbox" name="groups" value="${g}" id="${prefix}-${g}" ${(DEFAULT_OUTLOOK_GROUPS as string[]).includes(g) ? 'checked' : ''}> ${g}</label>`,
  )}</fieldset>`;
}

function providerCard(provider: Provider, m: PageModel): SafeHtml {
  const info = PROVIDER_INFO[provider];
  const signIn = info.oauth
    ? html`<form method="post" action="/signin/${provider}" target="switchboard-signin" data-popup id="signin-${provider}">
${csrfField(m.csrf)}
${provider === 'outlook' ? groupBoxes('signin') : ''}
<label>Label (optional) <input type="text" name="label" maxlength="64"></label>
<button type="submit" ${m.signInUnavailable ? 'disabled' : ''}>Sign in with ${info.title}</button>
</form>`
    : '';
  const key = info.credential === 'api_key';
  return html`<div class="card" data-provider-card="${provider}">
<h3>${info.title}</h3>
${signIn}
<details ${info.oauth ? '' : 'open'}>
<summary>${key ? 'Add an API key' : 'Use a token instead'}</summary>
<form method="post" action="/accounts/add" id="add-${provider}" autocomplete="off">
${csrfField(m.csrf)}
<input type="hidden" name="provider" value="${provider}">
<label>${key ? 'API key' : 'Token'} <input type="password" name="secret" required autocomplete="off" spellcheck="false"></label>
<div class="muted">${info.tokenHelp} It is checked with the provider, stored encrypted, and never shown again.</div>
<label>Label (optional) <input type="text" name="label" maxlength="64"></label>
${provider === 'sales' ? html`<label>Dialect <select name="dialect"><option value="">spec (default)</option><option value="v2">v2 (Lusha's current API)</option><option value="spec">spec</option></select></label>` : ''}
${provider === 'vercel' ? html`<label>Team id (optional) <input type="text" name="team" maxlength="100"></label>` : ''}
${provider === 'outlook' ? groupBoxes('token') : ''}
<button type="submit">${key ? 'Add API key' : 'Add token'}</button>
</form>
</details>
</div>`;
}

export function confirmRemovePage(nonce: string, csrf: string, account: Account, triggerCount: number): SafeHtml {
  return layout({
    title: 'Remove account',
    nonce,
    script: false,
    body: html`<section id="confirm">
<h2>Remove the ${PROVIDER_INFO[account.provider].title} account “${account.label}”?</h2>
<p>${account.identity ? html`Identity: <strong>${account.identity}</strong>. ` : ''}Its stored credential is deleted${
      triggerCount ? html`, and its <strong>${triggerCount}</strong> trigger${triggerCount === 1 ? '' : 's'} stop and are deleted` : ''
    }. Agents can no longer use it.</p>
<form method="post" action="/accounts/remove" class="inline">${csrfField(csrf)}<input type="hidden" name="id" value="${account.id}"><input type="hidden" name="confirm" value="yes">
<button class="danger" type="submit">Yes, remove it</button></form>
<a class="button secondary" href="/">Cancel</a>
</section>`,
  });
}
