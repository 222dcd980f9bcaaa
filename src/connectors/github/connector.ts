import { PROVIDER_RECORDS } from '../../providers.js';
import { defineConnector } from '../../tool.js';
import { rateLimitExtras } from '../rate-limit.js';
import { whoSignedInAtGithub } from './sign-in.js';

export const GITHUB_API_VERSION = '2022-11-28';

export const github = defineConnector({
  id: 'github',
  title: PROVIDER_RECORDS.github.toolTitle,
  baseUrl: PROVIDER_RECORDS.github.baseUrl,
  defaultHeaders: { accept: 'application/vnd.github+json', 'x-github-api-version': GITHUB_API_VERSION },
  auth: (secret) => ({ authorization: `Bearer ${secret.token ?? ''}` }),
  conditionalGets: true,
  resultExtras: rateLimitExtras,
  async identify(api) {
    const res = await api.request({ method: 'GET', endpoint: '/user' });
    const user = res.body as { login?: string };
    const scopes = (res.headers['x-oauth-scopes'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    return { identity: user.login ?? null, scopes };
  },
  whoSignedIn: whoSignedInAtGithub,
});
