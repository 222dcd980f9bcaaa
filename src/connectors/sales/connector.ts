import { defineConnector } from '../../tool.js';

export const sales = defineConnector({
  id: 'sales',
  title: 'Sales intelligence',
  baseUrl: 'https://api.lusha.com',
  auth: (secret) => ({ api_key: secret.apiKey ?? '' }),
  // The account usage call costs no credits, so it is how a new key is checked.
  async identify(api) {
    await api.get('/account/usage');
    return { identity: null };
  },
});
