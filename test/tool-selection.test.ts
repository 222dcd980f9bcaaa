import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { InputError } from '../src/errors.js';
import { buildTools, serverTools } from '../src/registry.js';

const names = (options: Parameters<typeof loadConfig>[1]) => serverTools(loadConfig({}, options)).map((t) => t.name);
const every = buildTools({ readOnly: false }).map((t) => t.name);

function refusal(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('choosing tools', () => {
  it('--tools lists only the tools named, by exact name or glob, in the registry order', () => {
    expect(names({ tools: 'outlook_send_email,accounts_list' })).toEqual(['outlook_send_email', 'accounts_list']);
    const issues = names({ tools: 'github_*_issue*' });
    expect(issues.length).toBeGreaterThan(3);
    expect(issues.every((n) => /^github_.*_issue/.test(n))).toBe(true);
    expect(issues).toEqual(every.filter((n) => issues.includes(n)));
  });

  it('--tools adds to --toolsets when both are given; --exclude-tools removes its matches last', () => {
    const both = names({ toolsets: 'vercel', tools: 'github_get_issue_assignees' });
    expect(both).toContain('github_get_issue_assignees');
    expect(both).toContain('vercel_list_deployments');
    expect(both).toContain('triggers_create');
    expect(both.some((n) => n.startsWith('outlook_'))).toBe(false);

    const without = names({ toolsets: 'github', 'exclude-tools': '*_api_call,triggers_*' });
    expect(without).not.toContain('github_api_call');
    expect(without.some((n) => n.startsWith('triggers_'))).toBe(false);
    expect(without).toContain('github_create_issue');
    expect(without).toContain('events_next');
  });

  it('--read-only still wins, and naming a write tool with it says which flag to drop', () => {
    expect(names({ 'read-only': true, tools: 'github_*_issue*' }).every((n) => !/create|update|add|remove|lock/.test(n))).toBe(true);
    const error = refusal(() => names({ 'read-only': true, tools: 'outlook_send_email' }));
    expect(error.field).toBe('tools');
    expect(error.message).toMatch(/"outlook_send_email" names only tools that change things.*--read-only.*Drop one/);
  });

  it('refuses an unknown name (suggesting the nearest, else listing the tools there are) or a glob that matches nothing', () => {
    const unknown = refusal(() => names({ tools: 'github_create_isue' }));
    expect(unknown.field).toBe('tools');
    expect(unknown.message).toBe('--tools: "github_create_isue" is not a tool. Did you mean "github_create_issue"?');
    const far = refusal(() => names({ 'exclude-tools': 'send_a_fax' }));
    expect(far.message).toMatch(/^--exclude-tools: "send_a_fax" is not a tool\. Tools: outlook_find_email, .*github_create_issue, .*events_next\.$/);
    const glob = refusal(() => names({ 'exclude-tools': 'jira_*' }));
    expect(glob.field).toBe('exclude-tools');
    expect(glob.message).toMatch(/^--exclude-tools: "jira_\*" matches no tool\./);
  });

  it('refuses what is not a name or glob, and points the old --tools discover to --tool-mode', () => {
    expect(refusal(() => names({ tools: 'github_*/../x' })).message).toMatch(/not a tool name or glob/);
    expect(refusal(() => names({ tools: ' , ' })).message).toMatch(/needs at least one tool name/);
    expect(refusal(() => names({ tools: 'discover' })).message).toMatch(/--tool-mode discover/);
    expect(names({ 'tool-mode': 'discover', tools: 'github_*' })).toEqual(['tools_search', 'tools_describe', 'tools_call']);
  });

  it('reads SWITCHBOARD_TOOLS and SWITCHBOARD_EXCLUDE_TOOLS, flags winning', () => {
    const config = loadConfig({ SWITCHBOARD_TOOLS: 'vercel_*', SWITCHBOARD_EXCLUDE_TOOLS: 'vercel_api_call' }, {});
    expect(serverTools(config).map((t) => t.name)).not.toContain('vercel_api_call');
    expect(serverTools(config).every((t) => t.name.startsWith('vercel_'))).toBe(true);
    expect(loadConfig({ SWITCHBOARD_TOOLS: 'vercel_*' }, { tools: 'accounts_list' }).tools).toEqual(['accounts_list']);
  });
});
