import { PROVIDERS, type Provider } from '../store/types.js';
import { FormView, type FormProblem } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';
import { providerRecord } from '../providers.js';

interface Model {
  csrf: string;
  problem?: FormProblem;
  signInUnavailable?: string;
}

export function addSection(m: Model): SafeHtml {
  return html`<section class="panel" id="add" aria-labelledby="add-title">
<h2 id="add-title">Add an integration</h2>
<p class="lead">Sign in with the provider in a pop-up, or paste a token or API key. Credentials are checked with the provider, stored encrypted on this machine, and never shown again.</p>
${m.signInUnavailable ? html`<p class="muted" id="signin-note">${m.signInUnavailable}</p>` : ''}
<div class="grid">${PROVIDERS.map((p) => providerCard(p, m))}</div>
</section>`;
}

/** A provider's permission groups (Outlook's) as checkboxes; `purpose` tells the sign-in set from the token set apart. */
function groupBoxes(provider: Provider, v: FormView, purpose: string): SafeHtml | '' {
  const groups = providerRecord(provider).permissionGroups;
  if (!groups) return '';
  return html`<fieldset><legend>Permission groups</legend>${Object.keys(groups.scopes).map(
    (g) =>
      html`<label class="check"><input type="checkbox" name="groups" value="${g}" ${v.chosen('groups', g, groups.defaults.includes(g)) ? 'checked' : ''}${v.aria('groups')}> ${g}<span class="vh"> (${purpose})</span></label>`,
  )}</fieldset>${v.error('groups')}`;
}

function labelField(v: FormView, title: string, purpose: string): SafeHtml {
  return html`<div class="field"><label for="${v.id}-label">Label<span class="vh"> for the new ${title} account (${purpose})</span> (optional)</label>
<input type="text" id="${v.id}-label" name="label" maxlength="64" value="${v.value('label')}"${v.aria('label', `${v.id}-label-hint`)}>
<span class="hint" id="${v.id}-label-hint">How agents name it, e.g. work or personal.</span>${v.error('label')}</div>`;
}

function baseUrlField(v: FormView, title: string, hint: string): SafeHtml {
  return html`<div class="field"><label for="${v.id}-base-url">API base URL<span class="vh"> for ${title}</span> (optional)</label>
<input type="url" id="${v.id}-base-url" name="base_url" maxlength="300" spellcheck="false" autocomplete="off" value="${v.value('base_url')}"${v.aria('base_url', `${v.id}-base-url-hint`)}>
<span class="hint" id="${v.id}-base-url-hint">${hint}</span>${v.error('base_url')}</div>`;
}

function providerCard(provider: Provider, m: Model): SafeHtml {
  const info = providerRecord(provider);
  const signin = new FormView(`signin-${provider}`, m.problem, ['label', 'groups']);
  const add = new FormView(`add-${provider}`, m.problem, ['secret', 'label', 'dialect', 'team', 'groups', 'base_url']);
  const key = info.credential === 'api_key';
  const what = key ? 'API key' : 'token';
  const signIn = info.oauth
    ? html`<form method="post" action="/signin/${provider}" target="switchboard-signin" data-popup id="${signin.id}">
${csrfField(m.csrf)}
${groupBoxes(provider, signin, 'sign-in')}
${labelField(signin, info.title, 'sign-in')}
<button type="submit" ${m.signInUnavailable ? 'disabled' : ''}>Sign in with ${info.title}</button>
</form>
<div class="or">or</div>`
    : '';
  return html`<div class="card" data-provider-card="${provider}" id="add-card-${provider}">
<h3>${info.title}</h3>
${signIn}
<details ${!info.oauth || add.failed ? 'open' : ''}>
<summary>${key ? html`Add an API key<span class="vh"> for ${info.title}</span>` : html`Use a<span class="vh"> ${info.title}</span> token instead`}</summary>
<form method="post" action="/accounts/add" id="${add.id}" autocomplete="off">
${csrfField(m.csrf)}
${add.topError()}
<input type="hidden" name="provider" value="${provider}">
<div class="field"><label for="${add.id}-secret">${key ? 'API key' : 'Token'}<span class="vh"> for ${info.title}</span></label>
<input type="password" id="${add.id}-secret" name="secret" required autocomplete="off" spellcheck="false"${add.aria('secret', `${add.id}-secret-hint`)}>
${add.error('secret')}
<span class="hint" id="${add.id}-secret-hint">${info.tokenHelp}</span></div>
${labelField(add, info.title, what)}
${
  info.accountOptions.includes('dialect')
    ? html`<div class="field"><label for="${add.id}-dialect">API dialect</label><select id="${add.id}-dialect" name="dialect"${add.aria('dialect')}>
${[
  ['', 'automatic: v2 at api.lusha.com, else spec'],
  ['v2', "v2 (Lusha's current API)"],
  ['spec', "spec (the specification's paths)"],
].map(([value, text]) => html`<option value="${value}" ${add.value('dialect') === value ? 'selected' : ''}>${text}</option>`)}
</select>${add.error('dialect')}</div>`
    : ''
}
${
  info.accountOptions.includes('team')
    ? html`<div class="field"><label for="${add.id}-team">Team id (optional)</label>
<input type="text" id="${add.id}-team" name="team" maxlength="100" value="${add.value('team')}"${add.aria('team', `${add.id}-team-hint`)}>
<span class="hint" id="${add.id}-team-hint">For a token that acts for a team: its id (team_…). Leave empty for your personal account.</span>${add.error('team')}</div>`
    : ''
}
${groupBoxes(provider, add, 'token')}
${info.baseUrlHint ? baseUrlField(add, info.title, info.baseUrlHint) : ''}
<button type="submit">Add ${what}<span class="vh"> for ${info.title}</span></button>
</form>
</details>
</div>`;
}
