import type { SandboxCredential } from '../sandbox/load.js';
import { html, type SafeHtml } from './html.js';
import { providerRecord } from '../providers.js';

/** Sandbox mode only: the public sample credentials the stand-ins accept, to paste under Add an integration or use with the CLI. */
export function sandboxCredentialsSection(credentials: SandboxCredential[]): SafeHtml {
  return html`<section class="panel" id="sandbox-credentials" aria-labelledby="sandbox-credentials-title">
<h2 id="sandbox-credentials-title">Sandbox credentials</h2>
<p class="lead">Public sample values that only this sandbox's stand-in providers accept: paste one under Add an integration, or pipe it to <code>switchboard accounts add PROVIDER --sandbox --token-stdin</code> (<code>--api-key-stdin</code> for the API key).</p>
<ul class="rows">${credentials.map(
    (c) =>
      html`<li data-provider="${c.provider}"><div class="title-line"><strong>${providerRecord(c.provider).title}</strong><span class="badge">${c.kind}</span></div>
<dl class="facts"><div><dt>Value</dt><dd><code class="credential">${c.value}</code></dd></div><div><dt>For</dt><dd>${c.who}</dd></div></dl></li>`,
  )}</ul>
</section>`;
}
