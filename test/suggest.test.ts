import { describe, expect, it } from 'vitest';
import { closest, didYouMean } from '../src/suggest.js';

describe('did you mean', () => {
  it('finds a typo, a swap, a missing prefix or a cut-short name, and nothing for what is far off', () => {
    expect(closest('gihub', ['outlook', 'sales', 'github', 'vercel'])).toBe('github');
    expect(closest('switchboard:raed', ['switchboard', 'switchboard:read'])).toBe('switchboard:read');
    expect(closest('new_issue', ['github.new_issue', 'github.updated_issue', 'outlook.new_email'])).toBe('github.new_issue');
    expect(closest('warning', ['debug', 'info', 'warn', 'error'])).toBe('warn');
    expect(closest('GITHUB', ['github'])).toBe('github');
    expect(closest('emacs', ['claude-desktop', 'claude-code', 'cursor', 'vscode'])).toBeUndefined();
    expect(closest('', ['a'])).toBeUndefined();
    expect(didYouMean('vscod', ['cursor', 'vscode'])).toBe(' Did you mean "vscode"?');
    expect(didYouMean('zzz', ['cursor', 'vscode'])).toBe('');
  });
});
