import type { Provider } from '../store/types.js';
import type { Connector, Tool } from '../tool.js';
import { apiCallTool } from './api-call.js';
import { github } from './github/connector.js';
import { gistsTools } from './github/gists.tools.js';
import { issuesTools } from './github/issues.tools.js';
import { pullsTools } from './github/pulls.tools.js';
import { reposTools } from './github/repos.tools.js';
import { workflowsTools } from './github/workflows.tools.js';
import { calendarTools } from './outlook/calendar.tools.js';
import { outlook } from './outlook/connector.js';
import { contactsTools } from './outlook/contacts.tools.js';
import { mailTools } from './outlook/mail.tools.js';
import { sales } from './sales/connector.js';
import { salesTools } from './sales/tools.js';
import { vercel } from './vercel/connector.js';
import { vercelTools } from './vercel/tools.js';

export const CONNECTORS: Record<Provider, Connector> = { outlook, sales, github, vercel };

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Every connector tool; in read-only mode only those that change nothing. */
export function connectorTools(options: { readOnly: boolean }): Tool[] {
  const { readOnly } = options;
  const all: Tool[] = [
    ...mailTools,
    ...calendarTools,
    ...contactsTools,
    ...reposTools,
    ...gistsTools,
    ...issuesTools,
    ...pullsTools,
    ...workflowsTools,
    ...salesTools,
    ...vercelTools,
    apiCallTool(outlook, { pathField: 'endpoint', methods: ALL_METHODS, headers: true, example: '/me/messages?$top=5', readOnly }),
    apiCallTool(sales, { pathField: 'endpoint', methods: ['GET', 'POST'], headers: false, example: '/person', readOnly }),
    apiCallTool(github, {
      pathField: 'endpoint',
      methods: ALL_METHODS,
      headers: true,
      example: '/repos/{owner}/{repo}/issues?state=open',
      requireVendorAccept: true,
      readOnly,
    }),
    apiCallTool(vercel, { pathField: 'path', methods: ALL_METHODS, headers: true, example: '/v6/deployments?limit=5', readOnly }),
  ];
  return all.filter((tool) => !readOnly || tool.effect === 'read');
}
