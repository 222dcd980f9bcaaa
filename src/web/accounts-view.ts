import { PROVIDERS, type Account, type Provider } from '../store/types.js';
import { FormView, type FormProblem } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, noticeBox } from './layout.js';
import { providerRecord } from '../providers.js';
import { accountName } from './providers.js';
import type { Notice } from './session.js';
import { timeTag } from './time.js';

interface Model {
  csrf: string;
  now: number;
  accounts: Account[];
  notice?: Notice;
  problem?: FormProblem;
  signInUnavailable?: string;
}

export function accountsSection(m: Model): SafeHtml {
  return html`<section class="panel" id="accounts" aria-labelledby="accounts-title">
<h2 id="accounts-title">Connected accounts</h2>
<p class="lead">Agents pick an account per call with the tools' <code>account</code> input (a label or id); without it they use the provider's default.</p>
${m.notice?.section === 'accounts' ? noticeBox(m.notice) : ''}
<div id="signin-result" class="notice" aria-live="polite" hidden></div>
${PROVIDERS.map((p) => providerAccounts(p, m))}
</section>`;
}

function providerAccounts(provider: Provider, m: Model): SafeHtml {
  const accounts = m.accounts.filter((a) => a.provider === provider);
  const info = providerRecord(provider);
  const count = accounts.length === 1 ? '1 account' : `${accounts.length} accounts`;
  return html`<h3 id="accounts-${provider}">${info.title} <span class="muted small">${count}</span></h3>
${
  accounts.length === 0
    ? html`<p class="muted">No ${info.title} account yet: add one under <a href="#add-card-${provider}">Add an integration</a>.</p>`
    : html`<ul class="rows" data-provider="${provider}" aria-labelledby="accounts-${provider}">${accounts.map((a) => accountRow(a, m))}</ul>`
}`;
}

function accountRow(a: Account, m: Model): SafeHtml {
  const name = accountName(a);
  const reconnect =
    a.status === 'needs_reconnect'
      ? html`<p class="small">${providerRecord(a.provider).oauth && !m.signInUnavailable ? 'Sign in again under Add an integration, then remove this one.' : 'Remove it and add a new credential.'}</p>`
      : '';
  return html`<li class="split" data-account="${a.id}" data-label="${a.label}">
<div>
<div class="title-line"><strong class="label">${a.label}</strong>${a.isDefault ? html`<span class="badge default">default</span>` : ''}${a.shared ? html`<span class="badge shared">shared with you</span>` : ''}<span class="status status-${a.status}">${a.status === 'needs_reconnect' ? 'needs reconnect' : a.status}</span></div>
<dl class="facts">
<div><dt>Identity</dt><dd>${a.identity ?? html`<span class="muted">unknown</span>`}</dd></div>
${team(a)}
${a.baseUrl ? html`<div><dt>API base URL</dt><dd class="base-url"><code>${a.baseUrl}</code></dd></div>` : ''}
${providerRecord(a.provider).permissionGroups ? html`<div><dt>Permission groups</dt><dd>${a.groups.length ? a.groups.map((g) => html`<span class="badge">${g}</span> `) : html`<span class="muted">none</span>`}</dd></div>` : ''}
<div><dt>Last used</dt><dd class="last-used">${a.lastUsedAt ? timeTag(a.lastUsedAt, m.now) : html`<span class="muted">never</span>`}</dd></div>
<div><dt>Added</dt><dd>${timeTag(a.createdAt, m.now)}</dd></div>
</dl>
${reconnect}
</div>
${a.shared ? html`<p class="small muted">Its owner shared it with you: agents may use it (its label as <code>account</code>); only its owner can rename or remove it.</p>` : ownActions(a, m, name)}
</li>`;
}

/** Rename, make default and remove: for the viewer's own accounts only. */
function ownActions(a: Account, m: Model, name: string): SafeHtml {
  const rename = new FormView(`rename-${a.id}`, m.problem, ['label']);
  return html`<div class="actions">
<form method="post" action="/accounts/rename" class="inline" id="${rename.id}">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}">
<label class="vh" for="${rename.id}-label">New label for ${name}</label>
<input type="text" id="${rename.id}-label" name="label" value="${rename.value('label', a.label)}" size="12" maxlength="64" required${rename.aria('label')}>
<button class="secondary" type="submit">Rename<span class="vh"> ${name}</span></button>${rename.error('label')}${rename.topError()}</form>
${
  a.isDefault
    ? ''
    : html`<form method="post" action="/accounts/default" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}"><button class="secondary" type="submit">Make default<span class="vh"> ${name}</span></button></form>`
}
<a class="button secondary" href="/accounts/remove?id=${encodeURIComponent(a.id)}">Remove…<span class="vh"> ${name}</span></a>
</div>`;
}

/** Vercel: the team the account acts for (name and slug once verified; the id alone otherwise). */
function team(a: Account): SafeHtml | '' {
  if (!providerRecord(a.provider).accountOptions.includes('team')) return '';
  const { teamName, teamSlug, teamId } = a.meta;
  const named = teamName ?? teamSlug;
  const shown = named
    ? html`${named}${teamName && teamSlug && teamSlug !== teamName ? html` <span class="muted">(${teamSlug})</span>` : ''}${teamId ? html` <code class="muted">${teamId}</code>` : ''}`
    : teamId
      ? html`<code>${teamId}</code>`
      : html`<span class="muted">personal account</span>`;
  return html`<div><dt>Team</dt><dd class="team">${shown}</dd></div>`;
}

export function confirmRemovePage(nonce: string, csrf: string, account: Account, triggerCount: number): SafeHtml {
  return layout({
    title: 'Remove account',
    nonce,
    script: false,
    body: html`<section class="panel" id="confirm" aria-labelledby="confirm-title">
<h2 id="confirm-title">Remove the ${providerRecord(account.provider).title} account “${account.label}”?</h2>
<p>${account.identity ? html`Identity: <strong>${account.identity}</strong>. ` : ''}Its stored credential is deleted${
      triggerCount ? html`, and its <strong>${triggerCount}</strong> trigger${triggerCount === 1 ? '' : 's'} stop and are deleted` : ''
    }. Agents can no longer use it.</p>
<div class="actions">
<form method="post" action="/accounts/remove" class="inline">${csrfField(csrf)}<input type="hidden" name="id" value="${account.id}"><input type="hidden" name="confirm" value="yes">
<button class="danger" type="submit">Yes, remove it</button></form>
<a class="button secondary" href="/#accounts">Cancel</a>
</div>
</section>`,
  });
}
