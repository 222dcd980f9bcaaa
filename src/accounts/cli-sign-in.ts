import { Agent } from 'undici';
import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { Redactor } from '../redact.js';
import type { Account, Provider } from '../store/types.js';
import { deviceSignIn } from './device.js';
import { loopbackSignIn } from './loopback.js';

/** `switchboard accounts add <provider> --device | --browser`: signs in and stores (or reconnects) the account. */
export async function signInFromCli(
  config: Config,
  provider: Provider,
  o: { mode: 'device' | 'browser'; groups?: string[]; label?: string; say(line: string): void; signal?: AbortSignal },
): Promise<Account> {
  const redactor = new Redactor();
  const dispatcher = new Agent({ connect: { timeout: 10_000 } });
  const store = await openCliStore(config, redactor);
  const deps = { store, baseUrls: config.baseUrls, dispatcher, redactor, oauth: config.oauth };
  try {
    if (o.mode === 'device') {
      return await deviceSignIn(deps, provider, {
        groups: o.groups,
        label: o.label,
        signal: o.signal,
        prompt: (p) => {
          const minutes = Math.round(p.expiresIn / 60);
          o.say(`To sign in, open ${p.verificationUri} in a browser and enter the code ${p.userCode} (valid for ${minutes} minutes).`);
          o.say('Waiting for the sign-in to finish... (Ctrl+C to cancel)');
        },
      });
    }
    return await loopbackSignIn(deps, provider, {
      groups: o.groups,
      label: o.label,
      signal: o.signal,
      onUrl: (url) => {
        o.say('Open this address in a browser to sign in (it answers to this terminal on 127.0.0.1):');
        o.say(`  ${url}`);
        o.say('Waiting for the browser... (Ctrl+C to cancel)');
      },
    });
  } catch (error) {
    if (error instanceof Error) error.message = redactor.redact(error.message);
    if (o.signal?.aborted) throw new InputError('Sign-in cancelled; nothing was stored.');
    throw error;
  } finally {
    await store.close();
    await dispatcher.close();
  }
}
